import { useTranslation } from 'react-i18next';

/**
 * What only an owner of a file, folder or agent sees in its row: the share panel's button and
 * delete (after a confirmation in the given words).
 */
export function OwnerActions({
  name,
  confirmText,
  deleting,
  onShare,
  onDelete,
}: {
  name: string;
  confirmText: string;
  deleting: boolean;
  onShare: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <button type="button" aria-label={t('share.openOf', { name })} onClick={onShare}>
        {t('share.open')}
      </button>
      <button
        type="button"
        className="danger"
        aria-label={t('common.deleteOf', { name })}
        disabled={deleting}
        onClick={() => {
          if (window.confirm(confirmText)) onDelete();
        }}
      >
        {t('common.delete')}
      </button>
    </>
  );
}
