import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../api';
import { ROLES, type Role, type Share, type TargetType } from '../knowledge-types';
import { ErrorMessage } from './error-message';
import { Field } from './field';
import { TableHead } from './list';
import '../knowledge.css';

/**
 * The share panel of a file, folder or agent (`{base}/shares`, docs/adr/0032, 0035): its shares
 * with users and groups, each role changeable, removable, and a form to share again. The API
 * decides who may open it; a refusal (403, 404) is shown in words.
 */
export function SharePanel({
  base,
  name,
  onClose,
}: {
  /** The shared thing's address: `/v1/files/{id}`, `/v1/folders/{id}`, `/v1/agents/{id}`. */
  base: string;
  /** Its name, for the heading. */
  name: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  const queries = useQueryClient();
  const key = ['shares', base];
  const shares = useQuery({
    queryKey: key,
    queryFn: () => api<{ shares: Share[] }>(`${base}/shares`),
    retry: false,
  });
  const [targetType, setTargetType] = useState<TargetType>('user');
  const [targetId, setTargetId] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: key });
  const share = useMutation({
    mutationFn: (body: { target_type: TargetType; target_id: string; role: Role }) =>
      api<Share>(`${base}/shares`, { method: 'POST', body }),
    onSuccess: (s) => {
      setDone(t('share.shared', { target: s.target_id, role: t(`share.role.${s.role}`) }));
      setTargetId('');
      refresh();
    },
  });
  const unshare = useMutation({
    mutationFn: (s: Share) =>
      api<void>(`${base}/shares/${s.target_type}/${encodeURIComponent(s.target_id)}`, {
        method: 'DELETE',
      }),
    onSuccess: (_v, s) => {
      setDone(t('share.removed', { target: s.target_id }));
      refresh();
    },
  });
  const fieldError = (field: string) =>
    share.error instanceof ApiError ? share.error.fieldMessage(field) : undefined;
  const rows = shares.data?.shares ?? [];

  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('share.title', { name })}</h2>
      {shares.isError ? (
        <ErrorMessage error={shares.error} />
      ) : (
        <>
          {shares.isPending && <p>{t('app.loading')}</p>}
          {shares.data && rows.length === 0 && <p>{t('share.none')}</p>}
          {rows.length > 0 && (
            <table>
              <TableHead
                columns={[t('share.targetType'), t('share.targetId'), t('share.role')]}
                actions
              />
              <tbody>
                {rows.map((s) => (
                  <tr key={`${s.target_type}:${s.target_id}`} data-target={s.target_id}>
                    <td>{t(`share.target.${s.target_type}`)}</td>
                    <td>
                      <code>{s.target_id}</code>
                    </td>
                    <td>
                      <select
                        aria-label={t('share.roleOf', { target: s.target_id })}
                        value={s.role}
                        disabled={share.isPending}
                        onChange={(e) =>
                          share.mutate({
                            target_type: s.target_type,
                            target_id: s.target_id,
                            role: e.target.value as Role,
                          })
                        }
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {t(`share.role.${r}`)}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <button
                        type="button"
                        className="danger"
                        disabled={unshare.isPending}
                        aria-label={t('share.removeOf', { target: s.target_id })}
                        onClick={() => unshare.mutate(s)}
                      >
                        {t('share.remove')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setDone(null);
              share.mutate({ target_type: targetType, target_id: targetId.trim(), role });
            }}
          >
            <fieldset className="inline-choices">
              <legend>{t('share.targetType')}</legend>
              {(['user', 'group'] as const).map((tt) => (
                <label key={tt}>
                  <input
                    type="radio"
                    name={`${titleId}-target-type`}
                    value={tt}
                    checked={targetType === tt}
                    onChange={() => setTargetType(tt)}
                  />{' '}
                  {t(`share.target.${tt}`)}
                </label>
              ))}
            </fieldset>
            <Field
              label={targetType === 'user' ? t('share.userId') : t('share.groupId')}
              help={targetType === 'user' ? t('share.userIdHelp') : t('share.groupIdHelp')}
              error={fieldError('target_id') ?? fieldError('target_type')}
            >
              {(p) => (
                <input
                  {...p}
                  value={targetId}
                  required
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(e) => setTargetId(e.target.value)}
                />
              )}
            </Field>
            <Field label={t('share.role')} help={t('share.roleHelp')} error={fieldError('role')}>
              {(p) => (
                <select {...p} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {t(`share.role.${r}`)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <div className="row">
              <button type="submit" className="primary" disabled={share.isPending}>
                {share.isPending ? t('common.saving') : t('share.submit')}
              </button>
              <button type="button" onClick={onClose}>
                {t('common.close')}
              </button>
            </div>
          </form>
          {share.isError && <ErrorMessage error={share.error} />}
          {unshare.isError && <ErrorMessage error={unshare.error} />}
          <p role="status">{done ?? ''}</p>
        </>
      )}
      {shares.isError && (
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      )}
    </section>
  );
}
