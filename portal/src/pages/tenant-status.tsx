import { useTranslation } from 'react-i18next';
import type { Tenant } from '../types';

/** Phases during which the registry and the detail page refresh by themselves. */
export const BUSY_PHASES = new Set(['Pending', 'Provisioning', 'Deleting', 'Degraded']);
export const REFRESH_MS = 1500;

export function PhaseBadge({ phase }: { phase: string }) {
  return (
    <span className="badge" data-phase={phase}>
      {phase}
    </span>
  );
}

/** The identity service's and the database's readiness in words. */
export function ServiceIndicator({
  service,
}: {
  service: { enabled: boolean; ready: boolean | null };
}) {
  const { t } = useTranslation();
  if (!service.enabled) return <span>{t('tenants.notRequested')}</span>;
  return (
    <span className="badge">{service.ready ? t('tenants.ready') : t('tenants.notReady')}</span>
  );
}

export const tenantBusy = (tenant: Tenant): boolean => BUSY_PHASES.has(tenant.phase);
