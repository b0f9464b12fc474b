import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import '../styles/dialog.css';

interface InvoiceDialogProps {
  /** The button that opens it (rendered as the trigger). */
  trigger: ReactNode;
  title: string;
  description?: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
}

/**
 * A modal dialog (Radix: focus trapped, Escape closes, focus returns to the trigger). Its
 * backdrop is a plain element: Radix's Overlay locks page scroll with an injected <style>,
 * which the app's CSP refuses.
 */
export function InvoiceDialog({
  trigger,
  title,
  description,
  open,
  onOpenChange,
  children,
}: InvoiceDialogProps) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <div className="dialog-backdrop" aria-hidden="true" />
        <Dialog.Content
          className="dialog"
          {...(description === undefined ? { 'aria-describedby': undefined } : {})}
        >
          <Dialog.Title className="dialog-title">{title}</Dialog.Title>
          {description !== undefined ? (
            <Dialog.Description className="muted">{description}</Dialog.Description>
          ) : null}
          {children}
          <Dialog.Close asChild>
            <button type="button" className="button button-small dialog-close">
              {t('invoices.dialog.close')}
            </button>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
