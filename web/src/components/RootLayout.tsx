import { Outlet } from '@tanstack/react-router';
import { NetworkBanner } from './NetworkBanner';

export function RootLayout() {
  return (
    <>
      <NetworkBanner />
      <Outlet />
    </>
  );
}
