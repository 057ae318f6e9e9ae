import { useTranslation } from 'react-i18next';
import { useMe } from '../session';

export default function Home() {
  const { t } = useTranslation();
  const me = useMe();
  const acting = me.organizations.find((o) => o.id === me.organization_id);
  const list = (items: string[]) => (items.length ? items.join(', ') : t('common.none'));
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">{t('home.title')}</h1>
      <dl className="facts">
        <dt>{t('home.signedInAs')}</dt>
        <dd data-testid="username">{me.username ?? me.user_id}</dd>
        <dt>{t('home.userId')}</dt>
        <dd>
          <code>{me.user_id}</code>
        </dd>
        <dt>{t('home.platformAdmin')}</dt>
        <dd>{me.platform_admin ? t('common.yes') : t('common.no')}</dd>
        <dt>{t('home.organization')}</dt>
        <dd>{acting ? acting.alias : (me.organization_id ?? t('common.none'))}</dd>
        <dt>{t('home.roles')}</dt>
        <dd>{list(me.roles)}</dd>
        <dt>{t('home.permissions')}</dt>
        <dd>{list(me.permissions)}</dd>
      </dl>
    </section>
  );
}
