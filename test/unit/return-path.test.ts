/** The dashboard's return path after signing in or up (web/src/paths.ts): only its own pages. */
import { expect, test } from 'bun:test';
import { returnPath } from '../../web/src/paths';

test('a dashboard page is kept; another origin, the home page and the sign-in pages are not', () => {
  expect(returnPath('/teams')).toBe('/teams');
  expect(returnPath('/teams/team_abc')).toBe('/teams/team_abc');
  for (const p of ['//evil.example/teams', '/\\evil.example', 'https://evil.example/', 'teams', '', '/', '/signin', '/signup', '/forgot-password', '/reset-password', null, 42, { from: '/teams' }]) {
    expect(returnPath(p)).toBeNull();
  }
});
