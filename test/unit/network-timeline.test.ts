import { describe, expect, it } from 'vitest';
import { postedNetworkPost, recentNetworkPosts, SLOT_MS } from '../../src/api/sync/network-timeline.js';

const NOW = Date.parse('2026-03-02T09:00:00.000Z');
const HOUR = 3_600_000;

function account(platform: string, id = '3f1c2a9e-8b7d-4c6e-9a5f-1d2e3b4c5a6f') {
  return { id, platform, handle: 'studio_north', platformUserId: platform === 'bluesky' ? 'did:plc:abcdefghijklmnopqrstuvwx' : '17841400000000001', displayName: 'Studio North' };
}

describe('recentNetworkPosts', () => {
  it('is the same on every call: a pure function of seed, account and time', () => {
    const a = recentNetworkPosts(1, account('instagram'), NOW, 20);
    const b = recentNetworkPosts(1, account('instagram'), NOW, 20);
    expect(b).toEqual(a);
    expect(a).toHaveLength(20);
  });

  it('differs between seeds and between accounts', () => {
    const ids = (posts: ReturnType<typeof recentNetworkPosts>) => posts.map((post) => post.platformPostId);
    const base = ids(recentNetworkPosts(1, account('instagram'), NOW, 5));
    expect(ids(recentNetworkPosts(2, account('instagram'), NOW, 5))).not.toEqual(base);
    expect(ids(recentNetworkPosts(1, account('instagram', '00000000-0000-4000-8000-000000000001'), NOW, 5))).not.toEqual(base);
  });

  it('lists newest first, nothing after now, on whole seconds', () => {
    const posts = recentNetworkPosts(7, account('threads'), NOW, 30);
    const times = posts.map((post) => post.publishedAtMs);
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(times.every((t) => t <= NOW && t % 1000 === 0)).toBe(true);
    // About one post every ten hours: 30 posts span days, not weeks or hours.
    const spanHours = ((times[0] ?? 0) - (times[29] ?? 0)) / HOUR;
    expect(spanHours).toBeGreaterThan(150);
    expect(spanHours).toBeLessThan(600);
  });

  it('grows as time passes: a later read starts with the new posts and keeps the old ones', () => {
    const before = recentNetworkPosts(3, account('bluesky'), NOW, 10);
    const later = recentNetworkPosts(3, account('bluesky'), NOW + 3 * 24 * HOUR, 30);
    const fresh = later.filter((post) => post.publishedAtMs > NOW);
    expect(fresh.length).toBeGreaterThan(2);
    expect(later.slice(fresh.length, fresh.length + 10)).toEqual(before);
  });

  it('never holds more than one post per six-hour slot', () => {
    const slots = recentNetworkPosts(11, account('facebook'), NOW, 50).map((post) => Math.floor(post.publishedAtMs / SLOT_MS));
    expect(new Set(slots).size).toBe(slots.length);
  });

  it.each([
    ['instagram', /^\d{17}$/, 'image', /^https:\/\/instagram\.example\/p\/\d{17}$/],
    ['bluesky', /^at:\/\/did:plc:abcdefghijklmnopqrstuvwx\/app\.bsky\.feed\.post\/[2-7a-z]{13}$/, null, /^https:\/\/bsky\.example\/profile\/studio_north\/post\/[2-7a-z]{13}$/],
    ['tiktok', /^\d{19}$/, 'video', /^https:\/\/tiktok\.example\/@studio_north\/video\/\d{19}$/],
    ['youtube', /^[A-Za-z0-9_-]{11}$/, 'video', /^https:\/\/youtube\.example\/watch\?v=[A-Za-z0-9_-]{11}$/],
    ['reddit', /^1[0-9a-z]{6}$/, null, /^https:\/\/reddit\.example\/r\/u_studio_north\/comments\/1[0-9a-z]{6}$/],
  ])('gives %s posts the network\'s own ids, URLs and media', (platform, idPattern, media, urlPattern) => {
    for (const post of recentNetworkPosts(5, account(platform), NOW, 10)) {
      expect(post.platformPostId).toMatch(idPattern);
      expect(post.url).toMatch(urlPattern);
      if (media !== null) expect(post.mediaKind).toBe(media);
      expect(post.mediaUrls).toHaveLength(post.mediaKind === 'text' ? 0 : 1);
      expect(post.text.length).toBeGreaterThan(0);
    }
  });

  it('keeps texts within the network\'s limit and titles where the network has them', () => {
    for (const post of recentNetworkPosts(9, account('bluesky'), NOW, 40)) expect(post.text.length).toBeLessThanOrEqual(300);
    for (const post of recentNetworkPosts(9, account('youtube'), NOW, 5)) expect(post.options).toEqual({ title: expect.any(String) });
    for (const post of recentNetworkPosts(9, account('instagram'), NOW, 5)) expect(post.options).toEqual({});
  });
});

describe('postedNetworkPost', () => {
  it('is drawn from its own stream: the same for the same n, new for the next, and never one of the timeline’s', () => {
    const first = postedNetworkPost(1, account('youtube'), 0, NOW);
    expect(postedNetworkPost(1, account('youtube'), 0, NOW)).toEqual(first);
    const next = postedNetworkPost(1, account('youtube'), 1, NOW);
    expect(next.platformPostId).not.toBe(first.platformPostId);
    const timeline = recentNetworkPosts(1, account('youtube'), NOW, 50).map((post) => post.platformPostId);
    expect(timeline).not.toContain(first.platformPostId);
    expect(timeline).not.toContain(next.platformPostId);
  });

  it('is published at the instant given, with the network’s media and title, and the text given', () => {
    const post = postedNetworkPost(4, account('youtube'), 0, NOW, 'Roasting day, live.');
    expect(post).toMatchObject({ publishedAtMs: NOW, text: 'Roasting day, live.', mediaKind: 'video', options: { title: expect.any(String) } });
    expect(post.mediaUrls).toHaveLength(1);
  });
});
