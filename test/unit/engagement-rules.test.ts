import { describe, expect, it } from 'vitest';
import { matchKeywords } from '../../src/api/automations/matching.js';
import { attachmentTypeOf, notPublicHttpsReason, windowOpen } from '../../src/api/inbox/message-rules.js';
import { textLength } from '../../src/platforms/text-limit.js';

describe('matchKeywords', () => {
  it.each([
    ['a keyword anywhere, ignoring case', 'What is the PRICE?', ['price'], [], 'price'],
    ['the first keyword of the rule that appears', 'how much does it cost', ['cost', 'how much'], [], 'cost'],
    ['a keyword inside a longer word (contains)', 'priceless', ['price'], [], 'price'],
    ['nothing without a keyword', 'Lovely photo', ['price'], [], undefined],
    ['nothing when an exclude keyword appears', 'price of a refund?', ['price'], ['REFUND'], undefined],
    ['nothing for a message without text', null, ['price'], [], undefined],
    ['a keyword with spaces as written', 'tell me how much', ['how much'], [], 'how much'],
  ] as const)('finds %s', (_case, text, keywords, exclude, expected) => {
    expect(matchKeywords(text, keywords, exclude)).toBe(expected);
  });
});

describe('notPublicHttpsReason', () => {
  it.each([
    ['https://cdn.shop.example/a.jpg', undefined],
    ['https://203.0.113.9/a.jpg', undefined],
    ['http://cdn.shop.example/a.jpg', 'it is not https'],
    ['https://user:pw@cdn.shop.example/a.jpg', 'it carries credentials'],
    ['https://localhost/a.jpg', 'localhost is not a public host'],
    ['https://printer.local/a.jpg', 'printer.local is not a public host'],
    ['https://db.internal/a.jpg', 'db.internal is not a public host'],
    ['https://intranet/a.jpg', 'intranet is not a public host name'],
    ['https://127.0.0.1/a.jpg', '127.0.0.1 is not a public address'],
    ['https://10.1.2.3/a.jpg', '10.1.2.3 is not a public address'],
    ['https://172.20.0.1/a.jpg', '172.20.0.1 is not a public address'],
    ['https://192.168.1.20/a.jpg', '192.168.1.20 is not a public address'],
    ['https://169.254.169.254/latest', '169.254.169.254 is not a public address'],
    ['https://[::1]/a.jpg', '::1 is not a public address'],
    ['https://[fd00::1]/a.jpg', 'fd00::1 is not a public address'],
    ['not a url', 'it is not a URL'],
  ] as const)('%s → %s', (url, reason) => {
    expect(notPublicHttpsReason(url)).toBe(reason);
  });
});

describe('attachmentTypeOf', () => {
  it.each([
    ['https://cdn.example/a.JPG', 'image'],
    ['https://cdn.example/clip.mp4?sig=1', 'video'],
    ['https://cdn.example/voice.m4a', 'audio'],
    ['https://cdn.example/menu.pdf#page=2', 'file'],
    ['https://cdn.example/setup.exe', undefined],
    ['https://cdn.example/download', undefined],
  ] as const)('%s → %s', (url, type) => {
    expect(attachmentTypeOf(url)).toBe(type);
  });
});

describe('windowOpen', () => {
  const last = '2026-03-02T09:00:00.000Z';
  const at = (hours: number) => Date.parse(last) + hours * 3_600_000;
  it.each([
    [0, true],
    [23, true],
    [24, true],
    [24.001, false],
    [25, false],
  ])('%s h after the person’s last message → %s', (hours, open) => {
    expect(windowOpen(last, at(hours))).toBe(open);
  });

  it('is closed when the person never wrote', () => {
    expect(windowOpen(null, at(0))).toBe(false);
  });
});

describe('textLength', () => {
  it.each([
    ['plain', 5],
    ['café', 4],
    ['👍🏽', 2],
    ['', 0],
    ['☕', 1],
    ['👩‍💻', 3],
  ])('%s counts %i characters', (text, length) => {
    expect(textLength(text)).toBe(length);
  });
});
