package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.Contender;
import dev.zklock.recipes.test.LockKind;
import dev.zklock.recipes.test.SafetyMonitor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lock nodes under digest-authenticated ACLs given by the client's
 * {@link org.apache.curator.framework.api.ACLProvider}: the holder's credentials own the lock path and every node in
 * it, so a client without them (none, or a wrong password) can neither break a held lock nor read who holds it, for
 * zklock's locks (the write lock among them) and Curator's mutex alike ({@code ClientSetupTest} checks the ACL the
 * nodes get). ZooKeeper checks a delete against the ACL of the parent, so what protects a lock node is the ACL of the
 * lock path: the last test shows what happens when the lock path was made open beforehand.
 */
@Timeout(60)
final class SecurityTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** The kinds whose holder excludes a second contender of the same kind on one path. */
    static Stream<LockKind> kinds() {
        return Stream.concat(LockKind.mutexes().stream(), Stream.of(LockKind.zkWrite()));
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void heldLockNode_clientsWithoutTheCredentials_canNeitherDeleteNorReadItAndTheHolderKeepsTheLock(LockKind kind)
            throws Exception {
        CuratorFramework holderClient = alice();
        Contender holder = kind.newContender(holderClient, List.of(zk.path("lock")));
        SafetyMonitor.Claim claim = acquire(holder);
        String node = zk.path("lock") + "/"
                + holderClient.getChildren().forPath(zk.path("lock")).get(0);
        Contender waiter = kind.newContender(alice(), List.of(zk.path("lock")));

        for (CuratorFramework stranger :
                List.of(zk.newClient(), client(b -> b.authorization("digest", bytes("alice:guess"))))) {
            assertNoAuth(() -> stranger.delete().forPath(node));
            assertNoAuth(() -> stranger.getData().forPath(node));
            assertNoAuth(() -> stranger.setData().forPath(node, bytes("mine")));
            assertNoAuth(() -> stranger.getChildren().forPath(zk.path("lock")));
            assertNoAuth(() -> stranger.delete().deletingChildrenIfNeeded().forPath(zk.path("lock")));
        }

        assertThat(holderClient.checkExists().forPath(node).getCzxid())
                .isEqualTo(FencingToken.creationZxid(claim.token()));
        assertThat(waiter.acquire(Duration.ZERO)).isEmpty();
        holder.release();
        assertThat(waiter.acquire(Duration.ofSeconds(10))).isPresent();
        waiter.release();
        assertThat(lockNodes(holderClient)).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void acquire_byAClientWithoutTheCredentials_failsWithNoAuthAndLeavesNoNode(LockKind kind) throws Exception {
        CuratorFramework holderClient = alice();
        Contender holder = kind.newContender(holderClient, List.of(zk.path("lock")));
        acquire(holder);
        Contender stranger = kind.newContender(zk.newClient(), List.of(zk.path("lock")));

        assertThatThrownBy(() -> stranger.acquire(Duration.ofSeconds(5)))
                .satisfies(e -> assertThat(codeOf(e)).isEqualTo(KeeperException.Code.NOAUTH));

        assertThat(holderClient.getChildren().forPath(zk.path("lock"))).hasSize(1);
        holder.release();
        assertThat(lockNodes(holderClient)).isEmpty();
    }

    @Test
    void participantNodes_byAClientWithoutTheCredentials_throwsZkLockExceptionWithNoAuth() throws Exception {
        ZkExclusiveLock holder = new ZkExclusiveLock(alice(), zk.path("lock"));
        holder.acquire();
        ZkExclusiveLock stranger = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));

        assertThatThrownBy(stranger::participantNodes)
                .isInstanceOfSatisfying(
                        ZkLockException.class, e -> assertThat(e.code()).contains(KeeperException.Code.NOAUTH))
                .hasMessageContaining(zk.path("lock"));
        holder.release();
    }

    /**
     * ZooKeeper needs the DELETE permission on the parent to delete a node, whatever the node's own ACL says. If the
     * lock path was made open before the holder's client made it (by an operator, or a client without the ACL
     * provider), anyone can delete the holder's node, and the next waiter holds while the holder still thinks it does:
     * protect the lock path itself.
     */
    @Test
    void delete_byAStrangerWhenTheLockPathWasMadeOpen_breaksTheLockAndTheMonitorSeesTheOverlap() throws Exception {
        zk.newClient().create().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(zk.path("lock"));
        SafetyMonitor monitor = SafetyMonitor.create();
        CuratorFramework aliceClient = alice();
        ZkReentrantLock alice = new ZkReentrantLock(aliceClient, zk.path("lock"));
        CuratorFramework bobClient = alice();
        ZkReentrantLock bob = new ZkReentrantLock(bobClient, zk.path("lock"));
        alice.acquire();
        monitor.enter("alice", SafetyMonitor.Claim.exclusive(alice.path(), alice.fencingToken(), aliceClient));
        CuratorFramework stranger = zk.newClient();

        String node = stranger.getChildren().forPath(zk.path("lock")).get(0);
        assertNoAuth(() -> stranger.getData().forPath(zk.path("lock") + "/" + node));
        stranger.delete().forPath(zk.path("lock") + "/" + node);

        assertThat(bob.acquire(Duration.ofSeconds(10))).isTrue();
        monitor.enter("bob", SafetyMonitor.Claim.exclusive(bob.path(), bob.fencingToken(), bobClient));
        assertThat(alice.isHeldByCurrentThread()).isTrue();
        assertThat(monitor.report().overlaps()).isEqualTo(1);
        bob.release();
        alice.release();
        assertThat(alice.participantNodes()).isEmpty();
    }

    private CuratorFramework alice() {
        return client(b -> b.authorization("digest", bytes("alice:secret")).aclProvider(Acls.CREATOR_ONLY));
    }

    private static CuratorFramework client(Consumer<CuratorFrameworkFactory.Builder> customizer) {
        return zk.newClient(customizer);
    }

    private static SafetyMonitor.Claim acquire(Contender contender) throws Exception {
        Optional<List<SafetyMonitor.Claim>> claims = contender.acquire(Duration.ofSeconds(10));
        assertThat(claims).hasValueSatisfying(list -> assertThat(list).hasSize(1));
        return claims.orElseThrow().get(0);
    }

    private static void assertNoAuth(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(KeeperException.NoAuthException.class);
    }

    private static KeeperException.Code codeOf(Throwable error) {
        if (error instanceof ZkLockException lockException) {
            return lockException.code().orElse(null);
        }
        return error instanceof KeeperException keeper ? keeper.code() : null;
    }

    /** The lock path's children; none once the server has reaped the empty container (its timer runs often here). */
    private static List<String> lockNodes(CuratorFramework client) throws Exception {
        try {
            return client.getChildren().forPath(zk.path("lock"));
        } catch (KeeperException.NoNodeException reaped) {
            return List.of();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
