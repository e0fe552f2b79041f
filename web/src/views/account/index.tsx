/** /account: a notice while the address is not confirmed, the usage meter, API keys, the password and account deletion (Log out is in the header on every page). */
import { useMe } from '../../api/queries';
import { useTitle } from '../../ui/title';
import { ApiKeys } from './api-keys';
import { ChangePassword } from './change-password';
import { DeleteAccount } from './delete-account';
import { UsageMeter } from './usage';
import { VerifyNotice } from './verify-notice';

export function AccountView() {
  useTitle('Account');
  const me = useMe();
  const email = me.data?.email ?? '';
  return (
    <div className="page settings-body">
      <h1>Account</h1>
      <p className="muted">
        Signed in as <strong>{email}</strong>.
      </p>
      {me.data && !me.data.emailVerified ? <VerifyNotice email={email} /> : null}
      <UsageMeter />
      <ApiKeys />
      <ChangePassword email={email} />
      <DeleteAccount email={email} />
    </div>
  );
}
