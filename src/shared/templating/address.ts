/** Addresses in the render context: as the API writes them, and as templates read them. */

/** An address as the API writes it (AddressSchema); every field optional. */
export interface AddressData {
  type?: string;
  name?: string | null;
  street?: string | null;
  postalCode?: string | null;
  city?: string | null;
  country?: string | null;
  email?: string | null;
  phone?: string | null;
}

export type Nullable<T> = { [K in keyof T]: T[K] | null };

export type AddressView = Nullable<Required<Omit<AddressData, 'type'>>> & { type: string | null };

/** An address as templates read it: every member present, null when not a string. */
export function addressView(a: AddressData | undefined): AddressView {
  const member = (key: keyof AddressData) => {
    const value = a?.[key];
    return typeof value === 'string' ? value : null;
  };
  return {
    type: member('type'),
    name: member('name'),
    street: member('street'),
    postalCode: member('postalCode'),
    city: member('city'),
    country: member('country'),
    email: member('email'),
    phone: member('phone'),
  };
}

/** The items of an address list that are objects (addresses come from stored JSON). */
export function addressesOf(list: readonly unknown[] | null | undefined): AddressData[] {
  return (list ?? []).filter(
    (a): a is AddressData => typeof a === 'object' && a !== null && !Array.isArray(a),
  );
}

/** The first address of the first type in `order`, else the first address. */
export function pickAddress(addresses: AddressData[], order: string[]): AddressData | undefined {
  for (const type of order) {
    const found = addresses.find((a) => a.type === type);
    if (found) return found;
  }
  return addresses[0];
}
