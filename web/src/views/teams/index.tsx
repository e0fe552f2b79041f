/** /teams and /teams/<id>. */
import { TeamsHome } from './home';
import { TeamPage } from './team';

export function TeamsView({ id }: { id: string | null }) {
  return id ? <TeamPage key={id} id={id} /> : <TeamsHome />;
}
