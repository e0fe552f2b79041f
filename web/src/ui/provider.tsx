/** A sender's mark (no images from anywhere: a coloured square with its initials) and its event. */

function hue(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
  return h;
}

function initials(name: string): string {
  const words = name.split(/[\s\-_.]+/).filter(Boolean);
  const first = words[0] ?? name;
  return (words.length > 1 ? `${first[0] ?? ''}${words[1]?.[0] ?? ''}` : first.slice(0, 2)).toUpperCase();
}

export function ProviderIcon({ provider }: { provider: string }) {
  if (!provider) return null;
  return (
    <span className={`provider-icon hue-${hue(provider) % 8}`} title={provider} role="img" aria-label={provider}>
      {initials(provider)}
    </span>
  );
}

export function EventBadge({ event }: { event: string }) {
  if (!event) return null;
  return (
    <span className="badge event" title={event}>
      {event}
    </span>
  );
}
