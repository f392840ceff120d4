package org.gstore.coprocessor.endpoint;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessChecker;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.hbase.security.access.AuthManager;
import org.apache.hadoop.hbase.security.access.Permission.Action;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;

/**
 * The endpoints act for their caller: with HBase's {@code AccessController} on the region, a call needs the HBase
 * permissions the same data would need through plain HBase, checked with HBase's own permission cache (the
 * {@link AuthManager} the {@code AccessController} keeps up to date from ZooKeeper). Without an
 * {@code AccessController}, as in HBase itself, nothing is checked.
 *
 * <ul>
 *   <li>forming or deleting a group: READ and WRITE on every member table (a group reads its rows and keeps
 *       everyone else from writing them);
 *   <li>reading in a transaction, or looking a group up: READ on the table of each row read (of the leader);
 *   <li>committing: WRITE on the table, or on the column family, of every column written (a whole-row delete
 *       needs WRITE on the table).
 * </ul>
 *
 * The caller is HBase's RPC user; a call with none (made inside the server) is G-Store's own and is allowed.
 * Denials are HBase's {@link AccessDeniedException}, with the user, the action and the table.
 */
public final class Authorizer {
  private final Supplier<AuthManager> permissions;

  /** @param permissions the region's permission cache, or null when authorization is off */
  Authorizer(Supplier<AuthManager> permissions) {
    this.permissions = permissions;
  }

  /**
   * The checks of a region: through the {@code AccessController} loaded on it, if authorization is on. Looked up
   * at the first call, since HBase may start the coprocessors of a region in any order.
   */
  public static Authorizer of(Region region, Configuration conf) {
    if (!AccessChecker.isAuthorizationSupported(conf)) {
      return new Authorizer(() -> null);
    }
    return new Authorizer(new Supplier<>() {
      private volatile AuthManager found;

      @Override
      public AuthManager get() {
        if (found == null && region instanceof HRegion h && h.getCoprocessorHost() != null) {
          AccessController controller = h.getCoprocessorHost().findCoprocessor(AccessController.class);
          found = controller == null ? null : controller.getAuthManager();
        }
        return found;
      }
    });
  }

  /** Whether this call is checked at all: off without an AccessController, and for superusers and the server. */
  boolean checksThisCall() {
    return caller().isPresent();
  }

  void requireGroup(Collection<Key> members) throws AccessDeniedException {
    Optional<User> user = caller();
    if (user.isEmpty()) {
      return;
    }
    for (String table : tablesOf(members)) {
      require(user.get(), TableName.valueOf(table), null, Action.READ, "group rows of");
      require(user.get(), TableName.valueOf(table), null, Action.WRITE, "group rows of");
    }
  }

  void requireRead(Collection<Key> rows) throws AccessDeniedException {
    Optional<User> user = caller();
    if (user.isEmpty()) {
      return;
    }
    for (String table : tablesOf(rows)) {
      require(user.get(), TableName.valueOf(table), null, Action.READ, "read");
    }
  }

  void requireWrite(List<RowWriteProto> writes) throws AccessDeniedException {
    Optional<User> user = caller();
    if (user.isEmpty()) {
      return;
    }
    for (RowWriteProto w : writes) {
      TableName table = TableName.valueOf(w.getKey().getTable());
      if (w.getDeleteRow()) {
        require(user.get(), table, null, Action.WRITE, "delete a row of");
      }
      for (ColumnProto c : w.getColumnsList()) {
        require(user.get(), table, c.getFamily().toByteArray(), Action.WRITE, "write");
      }
    }
  }

  /** The calling user, or empty when authorization is off or the call comes from inside the server. */
  private Optional<User> caller() {
    if (permissions.get() == null) {
      return Optional.empty();
    }
    return RpcServer.getRequestUser().filter(u -> !Superusers.isSuperUser(u));
  }

  private void require(User user, TableName table, byte[] family, Action action, String what)
      throws AccessDeniedException {
    AuthManager auth = permissions.get();
    boolean granted = family == null ? auth.authorizeUserTable(user, table, action)
        : auth.authorizeUserTable(user, table, family, action);
    if (!granted) {
      throw new AccessDeniedException("Insufficient permissions for user '" + user.getShortName() + "' (G-Store: "
          + what + " " + table + (family == null ? "" : ", family " + new String(family,
          java.nio.charset.StandardCharsets.UTF_8)) + ", action=" + action + ")");
    }
  }

  private static Set<String> tablesOf(Collection<Key> keys) {
    Set<String> tables = new TreeSet<>();
    keys.forEach(k -> tables.add(k.table()));
    return tables;
  }
}
