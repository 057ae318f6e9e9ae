import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { ListStatus, TableHead } from '../components/list';
import { OwnerActions } from '../components/owner-actions';
import { SharePanel } from '../components/share-panel';
import type { Agent } from '../knowledge-types';
import '../knowledge.css';

/**
 * Agents (Custom GPTs) the caller may see (docs/adr/0029, 0035): edit for editors and owners;
 * delete and the share panel for owners (the creator, an Owner by share, or an organization
 * admin, whom the API answers as owner). Others do not see those buttons.
 */
export default function Agents() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [sharing, setSharing] = useState<Agent | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ['agents'],
    queryFn: () => api<{ agents: Agent[] }>('/v1/agents'),
  });
  const remove = useMutation({
    mutationFn: (a: Agent) => api<void>(`/v1/agents/${a.id}`, { method: 'DELETE' }),
    onSuccess: (_v, a) => {
      setSaid(t('agents.deleted', { name: a.name }));
      if (sharing?.id === a.id) setSharing(null);
      void queries.invalidateQueries({ queryKey: ['agents'] });
    },
  });
  const agents = list.data?.agents ?? [];
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">{t('agents.title')}</h1>
      <p>{t('agents.lead')}</p>
      <p>
        <Link href="/agents/new" className="button-link">
          {t('agents.new')}
        </Link>
      </p>
      {remove.isError && <ErrorMessage error={remove.error} />}
      <p role="status">{said ?? ''}</p>
      {sharing && (
        <SharePanel
          base={`/v1/agents/${sharing.id}`}
          name={sharing.name}
          onClose={() => setSharing(null)}
        />
      )}
      <ListStatus query={list} empty={agents.length === 0} emptyText={t('agents.empty')} />
      {agents.length > 0 && (
        <table>
          <TableHead
            columns={[
              t('agents.name'),
              t('agents.model'),
              t('agents.servers'),
              t('agents.documents'),
              t('agents.role'),
            ]}
            actions
          />
          <tbody>
            {agents.map((a) => (
              <tr key={a.id} data-agent={a.name}>
                <td>
                  <strong>{a.name}</strong>
                  {a.description && <p className="help">{a.description}</p>}
                </td>
                <td>{a.model ?? t('common.none')}</td>
                <td>{a.mcp_server_ids.length}</td>
                <td>{a.document_ids.length}</td>
                <td>{t(`share.role.${a.role}`)}</td>
                <td>
                  <div className="actions">
                    {a.role !== 'viewer' && (
                      <Link
                        href={`/agents/${a.id}`}
                        aria-label={t('agents.editOf', { name: a.name })}
                      >
                        {t('agents.edit')}
                      </Link>
                    )}
                    {a.role === 'owner' && (
                      <OwnerActions
                        name={a.name}
                        confirmText={t('agents.deleteConfirm', { name: a.name })}
                        deleting={remove.isPending}
                        onShare={() => setSharing(a)}
                        onDelete={() => remove.mutate(a)}
                      />
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
