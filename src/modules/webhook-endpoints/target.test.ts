import { describe, expect, it } from 'vitest';
import { checkTarget, classifyAddress, type Resolve } from './target.js';

/** The target rules on their own, with a resolver standing in for DNS answers. */

const answers =
  (...addresses: string[]): Resolve =>
  () =>
    Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('webhook targets', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    // IPv4-compatible IPv6 (::/96): judged as the IPv4 address it embeds.
    ['::127.0.0.1', 'private'],
    ['::7f00:1', 'private'],
    ['::a00:1', 'private'],
  ])('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'special-purpose'],
    ['255.255.255.255', 'special-purpose'],
    ['192.0.2.1', 'special-purpose'],
    ['64:ff9b::a00:1', 'special-purpose'],
    ['168.63.129.16', 'cloud metadata'],
    ['fd20:ce::254', 'cloud metadata'],
    ['fd00:ec2::123', 'cloud metadata'],
    ['::169.254.169.254', 'cloud metadata'],
    ['::a9fe:a9fe', 'cloud metadata'],
    ['::a9fe:101', 'link-local'],
    ['::0.0.0.2', 'special-purpose'],
    ['::808:808', 'IPv4-compatible'],
  ])('always refuses %s (%s)', (address, why) => {
    const kind = classifyAddress(address);
    expect(typeof kind).toBe('object');
    expect((kind as { refused: string }).refused).toContain(why);
  });

  it.each([
    'http://[::127.0.0.1]/hook',
    'http://[::7f00:1]/hook',
    'https://[0:0:0:0:0:0:7f00:1]/hook',
    'https://[::10.1.2.3]/hook',
  ])('refuses the IPv4-compatible form %s like the private address it embeds', async (url) => {
    const check = await checkTarget(url, false);
    expect(check).toMatchObject({ ok: false });
    expect((check as { reason: string }).reason).toContain('private or loopback');
  });

  it('refuses Azure’s wire server and the metadata host names, whatever the setting', async () => {
    for (const url of [
      'http://168.63.129.16/machine',
      'https://[::a9fe:a9fe]/latest/meta-data/',
      'http://instance-data/latest/',
    ]) {
      const check = await checkTarget(url, true, answers('10.0.0.1'));
      expect(check, url).toMatchObject({ ok: false });
    }
  });

  it('needs every address of a name to pass: one private answer refuses the name', async () => {
    const mixed = answers('8.8.8.8', '10.0.0.5');
    const refused = await checkTarget('https://hooks.example.com/x', false, mixed);
    expect(refused).toMatchObject({ ok: false });
    expect(await checkTarget('https://hooks.example.com/x', true, mixed)).toMatchObject({
      ok: true,
      address: '8.8.8.8',
      family: 4,
    });
    const metadata = answers('8.8.8.8', '169.254.169.254');
    for (const allow of [false, true])
      expect(await checkTarget('https://hooks.example.com/x', allow, metadata)).toMatchObject({
        ok: false,
        reason: expect.stringContaining('cloud metadata'),
      });
  });

  it('allows plain http only to private addresses with the setting', async () => {
    expect(
      await checkTarget('http://intranet.local/x', true, answers('192.168.1.10')),
    ).toMatchObject({ ok: true, address: '192.168.1.10' });
    expect(
      await checkTarget('http://mixed.example/x', true, answers('192.168.1.10', '8.8.8.8')),
    ).toMatchObject({ ok: false, reason: 'must use https' });
    expect(
      await checkTarget('http://intranet.local/x', false, answers('192.168.1.10')),
    ).toMatchObject({ ok: false });
  });

  it('connects to the address it checked, IPv6 too', async () => {
    expect(await checkTarget('https://v6.example/x', false, answers('2606:4700::1'))).toMatchObject(
      {
        ok: true,
        address: '2606:4700::1',
        family: 6,
      },
    );
    expect(await checkTarget('https://v6.example/x', false, answers())).toMatchObject({
      ok: false,
      reason: 'host v6.example does not resolve',
    });
  });
});
