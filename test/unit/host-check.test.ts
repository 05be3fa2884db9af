import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/errors.js';
import { allowedHostProblem, hostCheck, isLoopbackAddress } from '../../src/http/host-check.js';

/** What `check` does with a Host header that came in on a connection to `localAddress`. */
function decideWith(check: ReturnType<typeof hostCheck>, host: string | undefined, localAddress = '127.0.0.1'): 'pass' | number {
  let outcome: 'pass' | number = 'pass';
  const req = { path: '/', ctx: {}, headers: host === undefined ? {} : { host }, socket: { localAddress } } as unknown as Request;
  check(req, {} as Response, (error?: unknown) => {
    if (error instanceof ApiError) outcome = error.status;
    else if (error !== undefined) throw error;
  });
  return outcome;
}

const decide = (allowed: string[], host: string | undefined, localAddress?: string) => decideWith(hostCheck(allowed), host, localAddress);

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.42.0.9', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['0.0.0.0', false],
    ['localhost', false],
    ['', false],
  ])('%s → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});

describe('hostCheck', () => {
  describe('on a loopback connection, with no allowed hosts', () => {
    it.each([
      'localhost',
      'localhost:4010',
      'LOCALHOST:4010',
      'localhost.:4010',
      'app.localhost:4010',
      'a.b.localhost',
      '127.0.0.1',
      '127.0.0.1:4010',
      '127.1.2.3:80',
      '[::1]',
      '[::1]:4010',
      '[::ffff:127.0.0.1]:4010',
      '0.0.0.0:4010',
      '[::]:4010',
    ])('lets %s through', (host) => {
      expect(decide([], host)).toBe('pass');
    });

    it.each([
      'evil.example',
      'evil.example:4010',
      'localhost.evil.example',
      'evillocalhost',
      'mock.test:9999',
      '10.0.0.5:4010',
      '[fe80::1]:4010',
      '[::ffff:10.0.0.5]',
    ])('refuses %s with 403', (host) => {
      expect(decide([], host)).toBe(403);
    });

    it.each([undefined, '', 'a b', 'evil.example/path', 'user@localhost', 'localhost:port', '[localhost]', '[::1', 'a"><script>'])('answers 400 to the Host %j, which names no host', (host) => {
      expect(decide([], host)).toBe(400);
    });
  });

  describe('on a connection that came over the network (bound to a non-loopback address)', () => {
    it.each(['192.168.1.20:4010', '10.0.0.5', '[fe80::1]:4010', '127.0.0.1:4010', 'localhost'])('lets the address or loopback name %s through', (host) => {
      expect(decide([], host, '192.168.1.20')).toBe('pass');
      expect(decide([], host, '::ffff:192.168.1.20')).toBe('pass');
    });

    it('still refuses a name nobody allowed', () => {
      expect(decide([], 'evil.example:4010', '192.168.1.20')).toBe(403);
    });

    it('remembers no such answer for a later loopback connection', () => {
      const check = hostCheck([]);
      expect(decideWith(check, '10.0.0.5:4010', '10.0.0.5')).toBe('pass');
      expect(decideWith(check, '10.0.0.5:4010', '127.0.0.1')).toBe(403);
      expect(decideWith(check, 'localhost:4010', '127.0.0.1')).toBe('pass');
      expect(decideWith(check, 'localhost:4010', '127.0.0.1')).toBe('pass');
    });
  });

  describe('with allowed hosts', () => {
    it('lets a named host through on any port, in any case, and nothing under it', () => {
      expect(decide(['mock.test'], 'mock.test:9999')).toBe('pass');
      expect(decide(['mock.test'], 'MOCK.TEST')).toBe('pass');
      expect(decide(['Mock.Test.'], 'mock.test')).toBe('pass');
      expect(decide(['mock.test'], 'api.mock.test')).toBe(403);
      expect(decide(['mock.test'], 'evilmock.test')).toBe(403);
    });

    it('lets a leading-dot entry cover the domain and every name under it', () => {
      for (const host of ['example.com', 'api.example.com:8080', 'a.b.example.com']) expect(decide(['.example.com'], host), host).toBe('pass');
      for (const host of ['evilexample.com', 'example.com.evil.test', 'example.org']) expect(decide(['.example.com'], host), host).toBe(403);
    });

    it('lets a named address through', () => {
      expect(decide(['10.0.0.5'], '10.0.0.5:4010')).toBe('pass');
      expect(decide(['[fe80::1]'], '[fe80::1]:4010')).toBe('pass');
    });
  });

  describe('allowedHostProblem', () => {
    it.each(['mock.test', '.example.com', 'social_gateway_mock', 'localhost.', '10.0.0.5', 'fe80::1', '[fe80::1]'])('accepts %s', (entry) => {
      expect(allowedHostProblem(entry)).toBeUndefined();
    });

    it.each([
      ['all', /cannot be mixed/],
      ['http://mock.test', /URL/],
      ['*.example.com', /'\.example\.com'/],
      ['mock.test:8080', /port/],
      ['mock test', /not a host name/],
      ['', /not a host name/],
    ])('refuses %j', (entry, reason) => {
      expect(allowedHostProblem(entry)).toMatch(reason);
    });

    it('makes hostCheck throw on a bad entry', () => {
      expect(() => hostCheck(['*.example.com'])).toThrow(/allowedHosts: '\*\.example\.com' is a wildcard/);
    });
  });
});
