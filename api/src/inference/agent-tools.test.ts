import assert from 'node:assert/strict';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_TOOL_RESULT_CHARS, offeredName, refusalOf, resultText } from './agent-tools.js';

describe('agent tools: names, refusals and results as the model sees them', function () {
  it('keeps a valid unique name, makes others safe, and numbers a name already taken', function () {
    assert.equal(offeredName('search', new Set()), 'search');
    assert.equal(offeredName('files.read/all', new Set()), 'files_read_all');
    assert.equal(offeredName('search', new Set(['search'])), 'search_2');
    assert.equal(offeredName('search', new Set(['search', 'search_2'])), 'search_3');
    assert.equal(offeredName('', new Set()), 'tool');
    const long = 'x'.repeat(80);
    assert.equal(offeredName(long, new Set()).length, 64);
    assert.equal(offeredName(long, new Set(['x'.repeat(64)])), `${'x'.repeat(62)}_2`);
  });

  it('takes the gateway’s JSON-RPC message from a refusal, never other text', function () {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, message: 'link your credential first', data: { code: 'x' } },
    });
    assert.equal(
      refusalOf(new StreamableHTTPError(403, `Error POSTing to endpoint: ${body}`)),
      'link your credential first',
    );
    assert.equal(
      refusalOf(new StreamableHTTPError(502, 'Error POSTing to endpoint: <html>bad gateway')),
      'the MCP gateway answered HTTP 502',
    );
    assert.equal(refusalOf(new McpError(-32002, 'server access denied')), 'server access denied');
    assert.equal(
      refusalOf(new Error('ECONNREFUSED 10.0.0.1')),
      'the MCP gateway could not be reached',
    );
  });

  it('reads text, resources and structured content, and cuts a huge answer', function () {
    assert.equal(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image' },
          { type: 'resource', resource: { uri: 'file:///x', text: 'b' } },
        ],
      }),
      'a\n[image]\nb',
    );
    assert.equal(resultText({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
    const cut = resultText({
      content: [{ type: 'text', text: 'y'.repeat(MAX_TOOL_RESULT_CHARS + 5) }],
    });
    assert.ok(cut.startsWith('y'.repeat(MAX_TOOL_RESULT_CHARS)));
    assert.match(cut, /\[cut at \d+ characters\]$/);
  });
});
