/**
 * A modal dialog (Radix) with a title and an optional description. It renders no Radix
 * Overlay on purpose: the overlay locks page scroll with an injected <style>, which the CSP
 * refuses; the dim backdrop is the content's own CSS shadow. Focus is trapped and returned
 * to the trigger, Escape closes, the rest of the page is hidden from assistive technology.
 */
import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import '../styles/admin.css';

interface AdminDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: string;
  children: ReactNode;
}

export function AdminDialog({
  open,
  onOpenChange,
  title,
  description,
  children,
}: AdminDialogProps) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Content
          className="admin-dialog"
          {...(description === undefined ? { 'aria-describedby': undefined } : {})}
        >
          <Dialog.Title className="admin-dialog-title">{title}</Dialog.Title>
          {description === undefined ? null : (
            <Dialog.Description className="muted">{description}</Dialog.Description>
          )}
          {children}
          <Dialog.Close className="button button-small admin-dialog-close">
            {t('admin.close')}
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
