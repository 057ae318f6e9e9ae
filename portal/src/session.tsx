import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api } from './api';
import type { Me, Permission } from './types';

const MeContext = createContext<Me | undefined>(undefined);

/** The caller (`GET /v1/me`), read once per organization context and shared by every page. */
export function useMeQuery() {
  return useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/v1/me'), staleTime: 60_000 });
}

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside MeProvider');
  return me;
}

/** What a page needs: the platform-admin role, or a permission in the acting organization. */
export type Need = 'platform_admin' | Permission;

export function allowed(me: Me, need: Need): boolean {
  return need === 'platform_admin' ? me.platform_admin : me.permissions.includes(need);
}
