import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

const mock = useMock();

describe('GET /v1/profiles', () => {
  it('lists the fixture profiles with their connection counts', async () => {
    const res = await mock.call('get', '/v1/profiles');
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data.filter((p: { isDefault: boolean }) => p.isDefault)).toHaveLength(1);
    const connections = (await mock.call('get', '/v1/connections')).body.connections as Array<{ profileName?: string }>;
    for (const profile of res.body.data as Array<{ name: string; connectionCount: number }>) {
      expect(profile.connectionCount).toBe(connections.filter((c) => c.profileName === profile.name).length);
    }
  });
});

describe('POST /v1/profiles', () => {
  it('creates a profile that the list then shows', async () => {
    const res = await mock.call('post', '/v1/profiles').send({ name: 'Spring campaign' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ name: 'Spring campaign', isDefault: false, connectionCount: 0 });
    const list = await mock.call('get', '/v1/profiles?limit=100');
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(res.body.id);
  });

  describe('when the name is taken (in any case)', () => {
    it('answers 409 CONFLICT naming the field', async () => {
      await mock.call('post', '/v1/profiles').send({ name: 'Agency' });
      expectApiError(await mock.call('post', '/v1/profiles').send({ name: 'AGENCY' }), 409, 'CONFLICT', 'name');
    });
  });
});

describe('DELETE /v1/profiles/{id}', () => {
  it('deletes the profile and leaves its connections connected with no profile', async () => {
    const profiles = (await mock.call('get', '/v1/profiles')).body.data as Array<{ id: string; name: string; connectionCount: number }>;
    const target = profiles.find((p) => p.connectionCount > 0 && !('isDefault' in p && p.isDefault));
    expect(target).toBeDefined();
    const before = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; profileName?: string }>;
    const filed = before.filter((c) => c.profileName === target?.name).map((c) => c.id);

    const res = await mock.call('delete', `/v1/profiles/${target?.id}`);
    expectStatus(res, 200);
    expect(res.text).toBe('');

    const after = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; profileName?: string }>;
    expect(after).toHaveLength(before.length);
    // The list read before remembered these views: it answers them anew, filed under no profile.
    expect(filed.length).toBeGreaterThan(0);
    for (const id of filed) expect(after.find((c) => c.id === id)).not.toHaveProperty('profileName');
    for (const id of filed) {
      const account = await mock.call('get', `/v1/accounts/${id}`);
      expect(account.body.profile).toBeNull();
    }
    expectApiError(await mock.call('delete', `/v1/profiles/${target?.id}`), 404, 'NOT_FOUND');
  });

  describe('when the profile is the default one', () => {
    it('answers 409 CONFLICT and keeps it', async () => {
      const profiles = (await mock.call('get', '/v1/profiles')).body.data as Array<{ id: string; isDefault: boolean }>;
      const fallback = profiles.find((p) => p.isDefault);
      expectApiError(await mock.call('delete', `/v1/profiles/${fallback?.id}`), 409, 'CONFLICT');
      expect((await mock.call('get', '/v1/profiles')).body.data).toHaveLength(profiles.length);
    });
  });
});
