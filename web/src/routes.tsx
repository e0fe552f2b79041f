/** Every signed-in view, by URL. The server answers index.html for these paths (paths.ts). */
import { Route, Switch } from 'wouter';
import { EndpointView } from './views/endpoint';
import { EndpointsHome } from './views/endpoints';
import { NotFound } from './views/not-found';
import { SearchView } from './views/search';
import { AccountView } from './views/account';
import { EndpointSettings } from './views/settings';
import { TeamsView } from './views/teams';

export function Routes() {
  return (
    <Switch>
      <Route path={/^\/(?:endpoints\/?)?$/}>
        <EndpointsHome />
      </Route>
      <Route path={/^\/endpoints\/(?<slug>[^/]+)\/?(?<rest>.*)$/}>
        {(p: { slug?: string; rest?: string }) => {
          const slug = decodeURIComponent(p.slug ?? '');
          const rest = p.rest ?? '';
          return (
            <EndpointView slug={slug} rest={rest}>
              {rest === 'settings' ? <EndpointSettings slug={slug} /> : null}
            </EndpointView>
          );
        }}
      </Route>
      <Route path={/^\/search(?:\/requests\/(?<id>[^/]+))?\/?$/}>{(p: { id?: string }) => <SearchView requestId={p.id ? decodeURIComponent(p.id) : null} />}</Route>
      <Route path={/^\/account(?:\/.*)?$/}>
        <AccountView />
      </Route>
      <Route path={/^\/teams(?:\/(?<id>[^/]+))?\/?$/}>{(p: { id?: string }) => <TeamsView id={p.id ? decodeURIComponent(p.id) : null} />}</Route>
      <Route>
        <NotFound />
      </Route>
    </Switch>
  );
}
