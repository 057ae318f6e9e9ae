import { useTranslation } from 'react-i18next';
import type { FileNode } from '../knowledge-types';
import '../knowledge.css';

/**
 * A file's processing state in the API's words (`uploaded`, `processing`, `RAG Available`,
 * `failed`), with the reason of a failure.
 */
export function FileStatusBadge({ node }: { node: Pick<FileNode, 'status' | 'status_reason'> }) {
  const { t } = useTranslation();
  if (node.status === null) return null;
  return (
    <>
      <span className="badge" data-status={node.status}>
        {t(`files.status.${node.status}`)}
      </span>
      {node.status === 'failed' && node.status_reason && (
        <p className="help">{node.status_reason}</p>
      )}
    </>
  );
}
