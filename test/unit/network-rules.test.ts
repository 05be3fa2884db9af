import { describe, expect, it } from 'vitest';
import { DESTINATION_FIELDS, defaultMediaKind, isPremiumSubscription, networkPostRules, textLimitFor } from '../../src/api/posts/network-rules.js';
import { PLATFORM_IDS } from '../../src/platforms/catalog.js';

describe('textLimitFor', () => {
  it.each([
    ['twitter', null, 280],
    ['twitter', undefined, 280],
    ['twitter', 'none', 280],
    ['twitter', 'basic', 25000],
    ['twitter', 'premium', 25000],
    ['twitter', 'Premium', 25000],
    ['twitter', 'premium_plus', 25000],
    ['twitter', 'PremiumPlus', 25000],
    ['bluesky', null, 300],
    ['instagram', null, 2200],
    ['facebook', null, 63206],
    ['threads', null, 500],
    ['pinterest', null, 500],
    ['tiktok', null, 2200],
    ['linkedin', null, 3000],
    ['reddit', null, 40000],
    ['youtube', null, 5000],
    // A premium subscription means nothing off the microblogging network; an unknown network gets the body's maximum.
    ['bluesky', 'premium', 300],
    ['mastodon', null, 5000],
  ] as const)('%s with subscription %s allows %i', (platform, microblogSubscriptionType, limit) => {
    expect(textLimitFor({ platform, microblogSubscriptionType })).toBe(limit);
  });

  it('treats only the known tiers as premium', () => {
    expect(isPremiumSubscription('enterprise')).toBe(false);
    expect(isPremiumSubscription('')).toBe(false);
  });
});

describe('defaultMediaKind', () => {
  it.each([
    [[], 'text'],
    [['https://cdn.example/a.jpg'], 'image'],
    [['https://cdn.example/a.png?x=.mp4'], 'image'],
    [['https://cdn.example/a.mp4'], 'video'],
    [['https://cdn.example/a.webm#t=1'], 'video'],
    [['https://cdn.example/A.M4V'], 'video'],
    [['https://cdn.example/a.jpg', 'https://cdn.example/b.jpg'], 'multi-image'],
  ])('%j → %s', (urls, kind) => {
    expect(defaultMediaKind(urls)).toBe(kind);
  });
});

describe('networkPostRules', () => {
  it('gives every network of the catalog rules whose fields are destination fields', () => {
    for (const platform of PLATFORM_IDS) {
      const rules = networkPostRules(platform);
      for (const field of [...rules.fields, ...rules.required]) expect(DESTINATION_FIELDS).toContain(field);
      for (const field of rules.required) expect(rules.fields).toContain(field);
    }
  });

  it('gives a network this build does not know a plain post', () => {
    expect(networkPostRules('mastodon')).toMatchObject({ fields: [], required: [], threads: false });
    expect(networkPostRules('toString')).toMatchObject({ fields: [], threads: false });
  });
});
