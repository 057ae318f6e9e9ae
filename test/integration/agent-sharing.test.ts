import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { type ManagedProcess, startOpenAiTestBackend, type OpenAiTestBackend } from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  cachedToken,
  call,
  createApiKey,
  keycloak,
  queryRows,
  startTestApi,
  type DevUser,
  type TestApi,
  type TestUser,
} from './api-helpers.js';
import { acting, createGroup, setGroupMember, unique } from './files-helpers.js';
import { addMembers, provisionTenant, removeMembers, type Tenant } from './fixtures/index.js';
import {
  createTestUser,
  deleteTestUser,
  kcAdmin,
  setOrganizationMember,
  setPermissionsIn,
} from './keycloak-admin.js';
import { addEchoModel, vendorClient } from './messages-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret } from './secrets.js';

const NAME = 'agent-sharing';
const BACKEND_KEY = newSecret('sk-backend');

interface AgentRecord {
  id: string;
  name: string;
  instructions: string | null;
  created_by: string;
  role: 'viewer' | 'editor' | 'owner';
}
interface ShareRecord {
  target_type: 'user' | 'group';
  target_id: string;
  role: string;
  created_by: string;
}

/** Someone acting in the tenant's organization: on /v1, and with the vendor's SDK. */
interface Person {
  name: string;
  id: string;
  call: ReturnType<typeof acting>['call'];
  token(): Promise<string>;
  sdk(): Promise<Anthropic>;
  /** A new API key of theirs. */
  apiKey(): Promise<string>;
}

/** Every place an agent shows to someone who may use it. */
const EVERYWHERE = ['list', 'get', 'models', 'model', 'message', 'count_tokens'];
const modelId = (id: string) => `anthropic-agent-${id}`;

describe('Custom GPT sharing: agents shared with users and groups as viewer, editor or owner; the share panel for owners and organization admins; 404 for everyone else, on /v1 and the messages API', function () {
  this.timeout(120_000);
  let api: TestApi;
  let backend: OpenAiTestBackend;
  let operator: ManagedProcess | undefined;
  let tenant: Tenant | undefined;
  let org: string;
  let groupId: string;
  const testUsers: TestUser[] = [];
  /** The creator of the agents (dev user `member`). */
  let owner: Person;
  /** A platform admin acting in the organization: its organization admin (docs/adr/0035). */
  let admin: Person;
  /** Members of the organization (users of this suite), each with can_access_api there. */
  let viewer: Person;
  let editor: Person;
  /** In the suite's group. */
  let grouped: Person;
  /** Never shared with. */
  let stranger: Person;

  const person = (name: string, user: DevUser | TestUser, id: string): Person => ({
    name,
    id,
    call: acting(api.url, user, org).call,
    token: () => cachedToken(user),
    sdk: async () => vendorClient(api.url, org, { authToken: await cachedToken(user) }),
    apiKey: () => createApiKey(api.url, user, `gpt-${name}`),
  });
  const lastSystem = () =>
    String(
      (backend.requests.at(-1)?.body as { messages: { content: unknown }[] }).messages[0]?.content,
    );

  before(async function () {
    this.timeout(300_000);
    operator = startOperatorProcess();
    backend = await startOpenAiTestBackend({ apiKey: BACKEND_KEY, models: ['org/echo-7b'] });
    api = await startTestApi(NAME, {
      AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
      // A caller's groups are read on every request: leaving a group shows at once.
      AIPLANE_IDP_ACCESS_CACHE_SECONDS: '0',
    });
    tenant = await provisionTenant(api.url, 'gpt-share');
    org = tenant.organizationId;
    await addMembers(org, ['member']);
    const made: Record<string, TestUser> = {};
    for (const label of ['viewer', 'editor', 'grouped', 'stranger']) {
      const u = await createTestUser(`gpt-${label}`);
      testUsers.push(u);
      await setOrganizationMember(org, u.id, true);
      await setPermissionsIn(org, u.id, ['can_access_api']);
      made[label] = u;
    }
    groupId = await createGroup(org, unique('gpt-team'));
    await setGroupMember(org, groupId, made.grouped!.id, true);
    const users = keycloak().users;
    owner = person('owner', 'member', users.member.id);
    admin = person('admin', 'admin', users.admin.id);
    viewer = person('viewer', made.viewer!, made.viewer!.id);
    editor = person('editor', made.editor!, made.editor!.id);
    grouped = person('grouped', made.grouped!, made.grouped!.id);
    stranger = person('stranger', made.stranger!, made.stranger!.id);
    await addEchoModel(admin.call, backend.baseUrl, BACKEND_KEY);
  });

  after(async function () {
    if (tenant) {
      await removeMembers(tenant.organizationId, ['member']);
      if (groupId) await kcAdmin(`/organizations/${org}/groups/${groupId}`, { method: 'DELETE' });
    }
    for (const u of testUsers) await deleteTestUser(u);
    await operator?.stop();
    await Promise.all([api?.close(), backend?.close()]);
  });

  /** Creates an agent as `who` (201), with instructions naming it. */
  const agentOf = async (who: Person, name: string): Promise<AgentRecord> => {
    const r = await who.call('POST', '/v1/agents', {
      name,
      instructions: `You are ${name}.`,
      model: 'echo',
    });
    assert.equal(r.status, 201, r.text);
    return r.json() as AgentRecord;
  };
  const shareWith = (who: Person, agentId: string, to: Person | string, role: string) =>
    who.call('POST', `/v1/agents/${agentId}/shares`, {
      target_type: typeof to === 'string' ? 'group' : 'user',
      target_id: typeof to === 'string' ? to : to.id,
      role,
    });
  const roleOf = async (who: Person, agentId: string) => {
    const r = await who.call('GET', `/v1/agents/${agentId}`);
    assert.equal(r.status, 200, r.text);
    return (r.json() as AgentRecord).role;
  };

  const agentName = async (who: Person, agentId: string) => {
    const r = await who.call('GET', `/v1/agents/${agentId}`);
    assert.equal(r.status, 200, r.text);
    return (r.json() as AgentRecord).name;
  };

  /** A vendor call that answers, or is 404 not_found_error (anything else fails the test). */
  const answers = async (p: Promise<unknown>): Promise<boolean> => {
    try {
      await p;
      return true;
    } catch (err) {
      if (err instanceof Anthropic.APIError && err.status === 404) {
        assert.equal(err.type, 'not_found_error', err.message);
        return false;
      }
      throw err;
    }
  };

  /**
   * Where `who` finds the agent: the /v1 list and record, the vendor's model list and model,
   * a message and count_tokens with it as the model. Where it is not found, the answer must be
   * 404 (agent_not_found, or the vendor's not_found_error): never 403.
   */
  const sightings = async (who: Person, agentId: string): Promise<string[]> => {
    const seen: string[] = [];
    const list = await who.call('GET', '/v1/agents');
    assert.equal(list.status, 200, list.text);
    const listed = (list.json() as { agents: AgentRecord[]; count: number }).agents;
    if (listed.some((a) => a.id === agentId)) seen.push('list');
    const one = await who.call('GET', `/v1/agents/${agentId}`);
    if (one.status === 200) seen.push('get');
    else assertCode(one, 404, 'agent_not_found');
    const client = await who.sdk();
    const models = await client.models.list({ limit: 1000 });
    if (models.data.some((m) => m.id === modelId(agentId))) seen.push('models');
    if (await answers(client.models.retrieve(modelId(agentId)))) seen.push('model');
    const ask = { model: modelId(agentId), messages: [{ role: 'user' as const, content: 'hi' }] };
    if (await answers(client.messages.create({ ...ask, max_tokens: 10 }))) seen.push('message');
    if (await answers(client.messages.countTokens(ask))) seen.push('count_tokens');
    return seen;
  };

  /** Every route of one agent but reading it, each answering `status` with `code`. */
  const refusedEverywhereElse = async (
    who: Person,
    agentId: string,
    expect: Record<'put' | 'delete' | 'panel', [number, string]>,
  ) => {
    const a = `/v1/agents/${agentId}`;
    const checks: [string, string, unknown, [number, string]][] = [
      ['PUT', a, { name: 'taken-over' }, expect.put],
      ['DELETE', a, undefined, expect.delete],
      ['GET', `${a}/shares`, undefined, expect.panel],
      [
        'POST',
        `${a}/shares`,
        { target_type: 'user', target_id: who.id, role: 'owner' },
        expect.panel,
      ],
      ['DELETE', `${a}/shares/user/${viewer.id}`, undefined, expect.panel],
    ];
    for (const [method, path, body, [status, code]] of checks) {
      assertCode(await who.call(method, path, body), status, code);
    }
  };

  it('an agent is its creator’s alone until shared: other members, a group’s included, find it nowhere (404 on every route, never 403; absent from both lists); the organization admin sees it as owner', async function () {
    const agent = await agentOf(owner, 'private-gpt');
    assert.equal(agent.role, 'owner');
    assert.equal(agent.created_by, owner.id);
    assert.deepEqual(await sightings(owner, agent.id), EVERYWHERE);
    for (const other of [viewer, editor, grouped, stranger]) {
      assert.deepEqual(await sightings(other, agent.id), [], other.name);
    }
    const absent: [number, string] = [404, 'agent_not_found'];
    await refusedEverywhereElse(stranger, agent.id, {
      put: absent,
      delete: absent,
      panel: absent,
    });
    // The vendor's own shape, on the wire.
    const raw = await call(`${api.url}/anthropic/v1/models/${modelId(agent.id)}`, {
      headers: {
        authorization: `Bearer ${await stranger.token()}`,
        'x-aiplane-organization': org,
      },
    });
    assert.equal(raw.status, 404);
    assert.deepEqual(Object.keys(raw.json() as object), ['type', 'error']);
    assert.equal((raw.json() as { error: { type: string } }).error.type, 'not_found_error');
    // An id that names no agent at all answers the same.
    assertCode(await stranger.call('GET', `/v1/agents/${randomUUID()}`), 404, 'agent_not_found');

    assert.deepEqual(await sightings(admin, agent.id), EVERYWHERE);
    assert.equal(await roleOf(admin, agent.id), 'owner');
    assert.deepEqual(await sightings(owner, agent.id), EVERYWHERE, 'nothing changed for its owner');
  });

  it('a viewer uses the agent (its instructions reach the model) but changing, deleting and the share panel are 403; removing the share revokes every sighting at once', async function () {
    const agent = await agentOf(owner, 'viewer-gpt');
    const shared = await shareWith(owner, agent.id, viewer, 'viewer');
    assert.equal(shared.status, 200, shared.text);
    const share = shared.json() as ShareRecord;
    assert.deepEqual(
      [share.target_type, share.target_id, share.role, share.created_by],
      ['user', viewer.id, 'viewer', owner.id],
    );
    assert.deepEqual(await sightings(viewer, agent.id), EVERYWHERE);
    assert.equal(lastSystem(), 'You are viewer-gpt.', 'the viewer’s message ran the agent');
    assert.equal(await roleOf(viewer, agent.id), 'viewer');
    await refusedEverywhereElse(viewer, agent.id, {
      put: [403, 'agent_modification_denied'],
      delete: [403, 'agent_modification_denied'],
      panel: [403, 'agent_share_panel_denied'],
    });
    assert.equal(await agentName(owner, agent.id), 'viewer-gpt', 'the refused PUT changed nothing');
    assert.deepEqual(
      await sightings(stranger, agent.id),
      [],
      'a user share reaches that user only',
    );
    assert.deepEqual(await sightings(grouped, agent.id), []);
    // Their API key acts with their shares (as the vendor's tools send it).
    const byKey = vendorClient(api.url, org, { apiKey: await viewer.apiKey() });
    const ask = {
      model: modelId(agent.id),
      max_tokens: 10,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    assert.equal((await byKey.messages.create(ask)).model, modelId(agent.id));

    const removed = await owner.call('DELETE', `/v1/agents/${agent.id}/shares/user/${viewer.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await sightings(viewer, agent.id), []);
    assert.equal(await answers(byKey.messages.create(ask)), false, 'the key lost it too');
    assertCode(
      await owner.call('DELETE', `/v1/agents/${agent.id}/shares/user/${viewer.id}`),
      404,
      'share_not_found',
    );
  });

  it('an editor changes the agent but may not delete it or open the share panel; sharing again lowers the role, at once', async function () {
    const agent = await agentOf(owner, 'editor-gpt');
    assert.equal((await shareWith(owner, agent.id, editor, 'editor')).status, 200);
    assert.deepEqual(await sightings(editor, agent.id), EVERYWHERE);
    const put = await editor.call('PUT', `/v1/agents/${agent.id}`, {
      name: 'edited-gpt',
      instructions: 'You were edited.',
    });
    assert.equal(put.status, 200, put.text);
    assert.equal((put.json() as AgentRecord).role, 'editor');
    assert.equal(await agentName(owner, agent.id), 'edited-gpt');
    const used = await (
      await owner.sdk()
    ).messages.create({
      model: modelId(agent.id),
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(used.model, modelId(agent.id));
    assert.equal(lastSystem(), 'You were edited.', 'the owner runs the edited agent');
    assertCode(
      await editor.call('DELETE', `/v1/agents/${agent.id}`),
      403,
      'agent_modification_denied',
    );
    for (const [method, path, body] of [
      ['GET', `/v1/agents/${agent.id}/shares`, undefined],
      [
        'POST',
        `/v1/agents/${agent.id}/shares`,
        { target_type: 'user', target_id: stranger.id, role: 'viewer' },
      ],
      ['DELETE', `/v1/agents/${agent.id}/shares/user/${editor.id}`, undefined],
    ] as const) {
      assertCode(await editor.call(method, path, body), 403, 'agent_share_panel_denied');
    }
    assert.deepEqual(await sightings(stranger, agent.id), [], 'the editor shared nothing');

    assert.equal((await shareWith(owner, agent.id, editor, 'viewer')).status, 200);
    assert.equal(await roleOf(editor, agent.id), 'viewer');
    assertCode(
      await editor.call('PUT', `/v1/agents/${agent.id}`, { name: 'again' }),
      403,
      'agent_modification_denied',
    );
  });

  it('a group share reaches the group’s members only, with the group’s role; leaving the group or removing the share ends it at once', async function () {
    const agent = await agentOf(owner, 'team-gpt');
    const shared = await shareWith(owner, agent.id, groupId, 'editor');
    assert.equal(shared.status, 200, shared.text);
    assert.equal((shared.json() as ShareRecord).target_type, 'group');
    assert.deepEqual(await sightings(grouped, agent.id), EVERYWHERE);
    assert.equal(await roleOf(grouped, agent.id), 'editor');
    const put = await grouped.call('PUT', `/v1/agents/${agent.id}`, { description: 'by the team' });
    assert.equal(put.status, 200, put.text);
    for (const other of [viewer, stranger]) {
      assert.deepEqual(await sightings(other, agent.id), [], other.name);
    }

    await setGroupMember(org, groupId, grouped.id, false);
    try {
      assert.deepEqual(await sightings(grouped, agent.id), [], 'out of the group');
    } finally {
      await setGroupMember(org, groupId, grouped.id, true);
    }
    assert.deepEqual(await sightings(grouped, agent.id), EVERYWHERE, 'back in the group');

    const removed = await owner.call('DELETE', `/v1/agents/${agent.id}/shares/group/${groupId}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await sightings(grouped, agent.id), []);
  });

  it('an Owner by share opens the share panel, shares on and deletes the agent with its shares; the creator stays owner (no share of theirs to remove)', async function () {
    const agent = await agentOf(owner, 'co-owned-gpt');
    assert.equal((await shareWith(owner, agent.id, editor, 'owner')).status, 200);
    assert.equal(await roleOf(editor, agent.id), 'owner');
    assert.equal((await shareWith(editor, agent.id, stranger, 'viewer')).status, 200);
    assert.deepEqual(await sightings(stranger, agent.id), EVERYWHERE);
    const panel = await editor.call('GET', `/v1/agents/${agent.id}/shares`);
    assert.equal(panel.status, 200, panel.text);
    const { shares, count } = panel.json() as { shares: ShareRecord[]; count: number };
    assert.equal(count, 2);
    assert.deepEqual(
      shares.map((s) => [s.target_id, s.role, s.created_by]).sort(),
      [
        [editor.id, 'owner', owner.id],
        [stranger.id, 'viewer', editor.id],
      ].sort(),
    );
    // The creator is owner without a share: the panel cannot take it away.
    assertCode(
      await editor.call('DELETE', `/v1/agents/${agent.id}/shares/user/${owner.id}`),
      404,
      'share_not_found',
    );
    assert.equal(await roleOf(owner, agent.id), 'owner');
    // The creator removes the co-owner's share like any other.
    const removed = await owner.call('DELETE', `/v1/agents/${agent.id}/shares/user/${editor.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await sightings(editor, agent.id), []);
    assert.equal((await shareWith(owner, agent.id, editor, 'owner')).status, 200);

    const deleted = await editor.call('DELETE', `/v1/agents/${agent.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    for (const who of [owner, editor, stranger, admin]) {
      assert.deepEqual(await sightings(who, agent.id), [], who.name);
    }
    const left = await queryRows(
      api.databaseUrl,
      'select 1 from agent_shares where agent_id = $1',
      [agent.id],
    );
    assert.equal(left.length, 0, 'the shares went with the agent');
  });

  it('the organization admin opens any agent’s share panel, shares, changes and deletes it; an admin’s own agent is theirs alone like anyone’s', async function () {
    const agent = await agentOf(owner, 'admin-managed-gpt');
    const panel = await admin.call('GET', `/v1/agents/${agent.id}/shares`);
    assert.equal(panel.status, 200, panel.text);
    assert.deepEqual(panel.json(), { shares: [], count: 0 });
    assert.equal((await shareWith(admin, agent.id, viewer, 'viewer')).status, 200);
    assert.deepEqual(await sightings(viewer, agent.id), EVERYWHERE);
    const put = await admin.call('PUT', `/v1/agents/${agent.id}`, { name: 'admin-renamed' });
    assert.equal(put.status, 200, put.text);
    assert.equal((put.json() as AgentRecord).role, 'owner');
    const unshared = await admin.call('DELETE', `/v1/agents/${agent.id}/shares/user/${viewer.id}`);
    assert.equal(unshared.status, 204, unshared.text);
    assert.deepEqual(await sightings(viewer, agent.id), []);
    assert.equal((await admin.call('DELETE', `/v1/agents/${agent.id}`)).status, 204);
    assertCode(await owner.call('GET', `/v1/agents/${agent.id}`), 404, 'agent_not_found');

    const adminsOwn = await agentOf(admin, 'admins-own-gpt');
    assert.deepEqual(await sightings(owner, adminsOwn.id), []);
    assert.equal((await admin.call('DELETE', `/v1/agents/${adminsOwn.id}`)).status, 204);
  });

  it('the share panel takes members and groups of the organization only (422 naming target_id), refuses bad bodies (422 naming the field), and lists one share per target', async function () {
    const agent = await agentOf(owner, 'panel-gpt');
    const post = (body: unknown) => owner.call('POST', `/v1/agents/${agent.id}/shares`, body);
    const outsiderOfTenant = keycloak().users.outsider.id; // a member of acme, not of this tenant
    for (const [type, id] of [
      ['user', randomUUID()],
      ['user', outsiderOfTenant],
      ['group', randomUUID()],
      ['group', viewer.id],
    ]) {
      assertValidationFailed(
        await post({ target_type: type, target_id: id, role: 'viewer' }),
        'target_id',
      );
    }
    assertValidationFailed(
      await post({ target_type: 'user', target_id: 'x', role: 'viewer' }),
      'target_id',
    );
    assertValidationFailed(
      await post({ target_type: 'team', target_id: viewer.id, role: 'viewer' }),
      'target_type',
    );
    assertValidationFailed(
      await post({ target_type: 'user', target_id: viewer.id, role: 'admin' }),
      'role',
    );
    assertValidationFailed(
      await post({ target_type: 'user', target_id: viewer.id, role: 'viewer', extra: 1 }),
      'extra',
    );
    assert.deepEqual(
      (await owner.call('GET', `/v1/agents/${agent.id}/shares`)).json(),
      { shares: [], count: 0 },
      'nothing refused was written',
    );

    assert.equal(
      (await post({ target_type: 'user', target_id: viewer.id, role: 'viewer' })).status,
      200,
    );
    const again = await post({
      target_type: 'user',
      target_id: viewer.id.toUpperCase(),
      role: 'editor',
    });
    assert.equal(again.status, 200, again.text);
    assert.equal((again.json() as ShareRecord).role, 'editor');
    const list = (await owner.call('GET', `/v1/agents/${agent.id}/shares`)).json() as {
      shares: ShareRecord[];
      count: number;
    };
    assert.equal(list.count, 1);
    assert.deepEqual(
      list.shares.map((s) => [s.target_type, s.target_id, s.role]),
      [['user', viewer.id, 'editor']],
    );
    for (const path of [`user/${randomUUID()}`, `robot/${viewer.id}`, `group/${viewer.id}`]) {
      assertCode(
        await owner.call('DELETE', `/v1/agents/${agent.id}/shares/${path}`),
        404,
        'share_not_found',
      );
    }
  });
});
