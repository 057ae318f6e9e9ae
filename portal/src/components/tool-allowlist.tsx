import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from './error-message';
import { Field } from './field';

interface AvailableTool {
  name: string;
  title: string | null;
  description: string | null;
  allowed: boolean;
}

/** Lines of a textarea as tool names: trimmed, empty lines dropped. */
const namesOf = (text: string) =>
  text
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The tool allowlist editor: names one per line (an empty list allows every tool) and, for a
 * stored server, the tools its upstream lists (`GET …/available-tools`) as checkboxes.
 */
export function ToolAllowlist({
  serverId,
  value,
  onChange,
  error,
}: {
  serverId: string | undefined;
  value: string[];
  onChange: (tools: string[]) => void;
  error: string | undefined;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value.join('\n'));
  const [asked, setAsked] = useState(false);
  const available = useQuery({
    queryKey: ['mcp-server-tools', serverId],
    queryFn: () =>
      api<{ tools: AvailableTool[] }>(`/v1/mcp/servers/${serverId ?? ''}/available-tools`),
    enabled: asked && serverId !== undefined,
    retry: false,
  });
  const set = (tools: string[]) => {
    setText(tools.join('\n'));
    onChange(tools);
  };
  return (
    <>
      <Field label={t('mcp.form.tools')} error={error}>
        {(p) => (
          <textarea
            {...p}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              onChange(namesOf(e.target.value));
            }}
          />
        )}
      </Field>
      {serverId !== undefined && (
        <fieldset className="field">
          <legend>{t('mcp.tools.offered')}</legend>
          {!asked && (
            <button type="button" onClick={() => setAsked(true)}>
              {t('mcp.tools.load')}
            </button>
          )}
          {available.isFetching && <p>{t('app.loading')}</p>}
          {available.isError && (
            <ErrorMessage error={available.error} onRetry={() => void available.refetch()} />
          )}
          {available.data?.tools.length === 0 && <p>{t('mcp.tools.none')}</p>}
          {available.data?.tools.map((tool) => (
            <label key={tool.name} className="row">
              <input
                type="checkbox"
                checked={value.includes(tool.name)}
                onChange={(e) =>
                  set(
                    e.target.checked
                      ? [...value, tool.name]
                      : value.filter((name) => name !== tool.name),
                  )
                }
              />
              <span>
                <code>{tool.name}</code>
                {tool.title ? ` (${tool.title})` : ''}
              </span>
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}
