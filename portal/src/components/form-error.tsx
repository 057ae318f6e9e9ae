import { useTranslation } from 'react-i18next';
import { ApiError } from '../api';
import { ErrorMessage } from './error-message';

/**
 * The error of a form's last submission below the form: a pointer to the fields when the API's
 * error is shown at one of them, else the error itself in words.
 */
export function FormError({
  error,
  placed,
}: {
  error: unknown;
  /** Whether a field of the form shows the error (or part of it). */
  placed: (err: ApiError) => boolean;
}) {
  const { t } = useTranslation();
  if (!error) return null;
  if (error instanceof ApiError && placed(error)) {
    return (
      <p role="alert" className="field-error">
        {t('error.validation')}
      </p>
    );
  }
  return <ErrorMessage error={error} />;
}

/** The API's message for a field (a 422 field error), if there is one. */
export const fieldMessageOf =
  (error: unknown) =>
  (field: string): string | undefined =>
    error instanceof ApiError ? error.fieldMessage(field) : undefined;
