/**
 * Replay from the server (POST /api/requests/{id}/replay, docs/exports.md): the input and the
 * answer are src/model/replay.ts's types, the one definition the route's schemas come from.
 */
import { useMutation } from '@tanstack/react-query';
import type { ReplayInput, ReplayResult } from '../../../src/model/replay';
import { api, unwrap } from './client';

export type { ReplayInput, ReplayResult };

export function useReplay(id: string) {
  return useMutation({
    mutationFn: (input: ReplayInput): Promise<ReplayResult> => unwrap(api.requests({ id }).replay.post(input)),
  });
}
