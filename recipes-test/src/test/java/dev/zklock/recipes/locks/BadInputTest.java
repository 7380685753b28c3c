package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every bad input gets a clear exception that names the value, before any ZooKeeper call, and leaves no node. The
 * sweeps find the public constructors and methods (inherited ones too) of every lock type by reflection, so a method
 * added later is swept too, and must be given an expectation here.
 */
@Timeout(60)
final class BadInputTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** Every public lock type, made on a client: the multi-lock takes the paths "lock" and "other". */
    private static final Map<Class<?>, Function<CuratorFramework, Object>> LOCKS = new LinkedHashMap<>();

    static {
        LOCKS.put(ZkReentrantLock.class, client -> new ZkReentrantLock(client, zk.path("lock")));
        LOCKS.put(ZkExclusiveLock.class, client -> new ZkExclusiveLock(client, zk.path("lock")));
        LOCKS.put(ZkReadWriteLock.class, client -> new ZkReadWriteLock(client, zk.path("lock")));
        LOCKS.put(ZkReadWriteLock.ReadLock.class, client -> new ZkReadWriteLock(client, zk.path("lock")).readLock());
        LOCKS.put(ZkReadWriteLock.WriteLock.class, client -> new ZkReadWriteLock(client, zk.path("lock")).writeLock());
        LOCKS.put(ZkMultiLock.class, client -> new ZkMultiLock(client, List.of(zk.path("lock"), zk.path("other"))));
        LOCKS.put(ZkSemaphore.class, client -> new ZkSemaphore(client, zk.path("lock"), 2));
    }

    /** What a public method does when the client is not started or is closed. */
    private enum OnIdleClient {
        /** It needs ZooKeeper: {@link IllegalStateException} naming the client state and the lock path. */
        FAILS_ON_CLIENT_STATE,
        /** It needs a hold: {@link IllegalMonitorStateException} naming the lock path and the thread. */
        FAILS_AS_NOT_HELD,
        /** It answers from local state. */
        ANSWERS
    }

    private static final Map<String, OnIdleClient> ON_IDLE_CLIENT = Map.ofEntries(
            Map.entry("acquire()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquire(long,TimeUnit)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquire(Duration)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("hold()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("hold(Duration)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquireAsync()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquireAsync(Duration)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("participantNodes()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("requestRevocation()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("makeRevocable(RevocationListener)", OnIdleClient.ANSWERS),
            Map.entry("makeRevocable(RevocationListener,Executor)", OnIdleClient.ANSWERS),
            Map.entry("getParticipantNodes()", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquire(int)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquire(int,long,TimeUnit)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquire(int,Duration)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquireAsync(int)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("acquireAsync(int,Duration)", OnIdleClient.FAILS_ON_CLIENT_STATE),
            Map.entry("returnLease(Lease)", OnIdleClient.ANSWERS),
            Map.entry("returnAll(Collection)", OnIdleClient.ANSWERS),
            Map.entry("release()", OnIdleClient.FAILS_AS_NOT_HELD),
            Map.entry("fencingToken()", OnIdleClient.FAILS_AS_NOT_HELD),
            Map.entry("fencingTokens()", OnIdleClient.FAILS_AS_NOT_HELD),
            Map.entry("holdCheck()", OnIdleClient.FAILS_AS_NOT_HELD),
            Map.entry("expire(String)", OnIdleClient.ANSWERS), // false: no hold stands on the node
            Map.entry("isAcquiredInThisProcess()", OnIdleClient.ANSWERS),
            Map.entry("isHeldByCurrentThread()", OnIdleClient.ANSWERS),
            Map.entry("isOwnedByCurrentThread()", OnIdleClient.ANSWERS),
            Map.entry("getHoldCount()", OnIdleClient.ANSWERS),
            Map.entry("getLockPath()", OnIdleClient.ANSWERS),
            Map.entry("holdState()", OnIdleClient.ANSWERS),
            Map.entry("addStateListener(LockStateListener)", OnIdleClient.ANSWERS),
            Map.entry("removeStateListener(LockStateListener)", OnIdleClient.ANSWERS),
            Map.entry("asLock()", OnIdleClient.ANSWERS),
            Map.entry("readLock()", OnIdleClient.ANSWERS),
            Map.entry("writeLock()", OnIdleClient.ANSWERS),
            Map.entry("path()", OnIdleClient.ANSWERS),
            Map.entry("paths()", OnIdleClient.ANSWERS),
            Map.entry("toString()", OnIdleClient.ANSWERS));

    static Stream<Named<Class<?>>> lockTypes() {
        return LOCKS.keySet().stream().map(type -> Named.of(type.getSimpleName(), type));
    }

    /** The lock types that are locks themselves (the read/write pair is not), for the acquire tests. */
    static Stream<Named<Class<?>>> acquirableTypes() {
        return lockTypes().filter(type -> InterProcessLock.class.isAssignableFrom(type.getPayload()));
    }

    /** The types whose {@code acquire} waits: the locks, and the semaphore. */
    static Stream<Named<Class<?>>> waitingTypes() {
        return Stream.concat(acquirableTypes(), Stream.of(Named.of("ZkSemaphore", ZkSemaphore.class)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lockTypes")
    void publicConstructorsAndMethods_nullArgument_throwNullPointerNamingTheParameterAndCreateNothing(Class<?> type) {
        CuratorFramework client = zk.newClient();
        SoftAssertions softly = new SoftAssertions();
        for (Executable member : PublicSurface.of(type)) {
            for (int i = 0; i < member.getParameterCount(); i++) {
                if (member.getParameterTypes()[i].isPrimitive()) {
                    continue;
                }
                Object[] arguments = arguments(member, client);
                arguments[i] = null;
                Object target = member instanceof Method ? LOCKS.get(type).apply(client) : null;
                softly.assertThat(PublicSurface.thrownBy(member, target, arguments))
                        .as("%s with argument %d null", PublicSurface.signature(member), i)
                        .isInstanceOf(NullPointerException.class)
                        .hasMessage(PublicSurface.parameterName(member, i));
            }
        }
        softly.assertAll();
        assertNoLockPath();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lockTypes")
    void publicMethods_onAnUnstartedOrClosedClient_throwNamingStateAndPathOrAnswerLocally(Class<?> type) {
        CuratorFramework closed = zk.newClient();
        closed.close();
        Map<String, CuratorFramework> clients = Map.of("LATENT", zk.newUnstartedClient(), "STOPPED", closed);
        SoftAssertions softly = new SoftAssertions();
        for (Method method : publicMethodsOf(type)) {
            OnIdleClient expected = ON_IDLE_CLIENT.get(PublicSurface.signature(method));
            assertThat(expected)
                    .as("an expectation for %s: every public method needs one", PublicSurface.signature(method))
                    .isNotNull();
            for (Map.Entry<String, CuratorFramework> client : clients.entrySet()) {
                Object lock = LOCKS.get(type).apply(client.getValue());
                Throwable thrown = PublicSurface.thrownBy(method, lock, arguments(method, client.getValue()));
                String as = PublicSurface.signature(method) + " on a client in state " + client.getKey();
                switch (expected) {
                    case FAILS_ON_CLIENT_STATE -> softly.assertThat(thrown)
                            .as(as)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining(client.getKey())
                            .hasMessageContaining(zk.path("lock"));
                    case FAILS_AS_NOT_HELD -> softly.assertThat(thrown)
                            .as(as)
                            .isInstanceOf(IllegalMonitorStateException.class)
                            .hasMessageContaining(zk.path("lock"))
                            .hasMessageContaining(Thread.currentThread().getName());
                    case ANSWERS -> softly.assertThat(thrown).as(as).isNull();
                }
            }
        }
        softly.assertAll();
        assertNoLockPath();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waitingTypes")
    void acquireAndHold_whenAlreadyInterrupted_throwNamingThePathClearTheFlagAndCreateNothing(Class<?> type) {
        CuratorFramework client = zk.newClient();
        Object lock = LOCKS.get(type).apply(client);
        SoftAssertions softly = new SoftAssertions();
        for (Method method : publicMethodsOf(type)) {
            if (!method.getName().equals("acquire") && !method.getName().equals("hold")) {
                continue;
            }
            Thread.currentThread().interrupt();
            Throwable thrown = PublicSurface.thrownBy(method, lock, arguments(method, client));

            String as = PublicSurface.signature(method);
            softly.assertThat(Thread.interrupted())
                    .as("interrupt flag after %s threw", as)
                    .isFalse();
            softly.assertThat(thrown)
                    .as(as)
                    .isInstanceOf(InterruptedException.class)
                    .hasMessageContaining(zk.path("lock"));
        }
        softly.assertAll();
        assertNoLockPath();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("acquirableTypes")
    void acquire_extremeTimeouts_saturateToWaitingOrMakeOneTry(Class<?> type) throws Exception {
        TimedLock lock = (TimedLock) LOCKS.get(type).apply(zk.newClient());
        // Another process's lock of the same layout, which sees every node: a semaphore mutex for ZkExclusiveLock.
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("lock"));
        boolean semaphoreLayout = type == ZkExclusiveLock.class;
        AbstractZkLock other =
                semaphoreLayout ? new ZkExclusiveLock(zk.newClient(), zk.path("lock")) : readWrite.writeLock();
        Callable<List<String>> nodes = semaphoreLayout ? other::participantNodes : readWrite::participantNodes;
        assertThat(lock.acquire(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
        releaseTheOnlyNode(lock, nodes);
        assertThat(lock.acquire(Long.MIN_VALUE, TimeUnit.NANOSECONDS)).isTrue();
        releaseTheOnlyNode(lock, nodes);
        assertThat(lock.acquire(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)))
                .isTrue();
        releaseTheOnlyNode(lock, nodes);
        assertThat(lock.acquire(Duration.ofSeconds(Long.MIN_VALUE))).isTrue();
        releaseTheOnlyNode(lock, nodes);

        other.acquire();
        assertThat(lock.acquire(Long.MIN_VALUE, TimeUnit.NANOSECONDS)).isFalse();
        assertThat(lock.acquire(Duration.ofSeconds(Long.MIN_VALUE))).isFalse();
        assertThat(lock.acquire(-1, TimeUnit.DAYS)).isFalse();
        assertThat(nodes.call()).hasSize(1);
        other.release();
        assertThat(nodes.call()).isEmpty();
    }

    /**
     * A path longer than a ZooKeeper request may be (the server's {@code jute.maxbuffer}, 1 MB by default) used to be
     * taken as valid: every create then made the server drop the client's connection, so every other lock on the
     * client saw it SUSPENDED, and an untimed acquire never returned (measured on a 1 MB path: {@code acquire(2 s)}
     * returned false after 9.1 s; {@code acquire()} was still waiting after 15 s). It is refused before any ZooKeeper
     * call, as other malformed paths are.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {ZkReentrantLock.class, ZkExclusiveLock.class, ZkReadWriteLock.class})
    void constructors_pathLongerThanAZooKeeperRequestMayBe_throwIllegalArgumentNamingItsLength(Class<?> type)
            throws Exception {
        String path = zk.path("a".repeat(1 << 20));

        assertThat(PublicSurface.thrownBy(
                        type.getConstructor(CuratorFramework.class, String.class),
                        null,
                        new Object[] {zk.newClient(), path}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(path.length()));
        assertNoLockPath();
    }

    @Test
    void constructors_malformedPath_throwIllegalArgumentNamingThePath() {
        CuratorFramework client = zk.newClient();
        List<String> malformed = List.of(
                "",
                "locks/a",
                "/locks/a/",
                "/locks//a",
                "/locks/./a",
                "/locks/../a",
                "/locks/.",
                "/locks/..",
                "/locks/a\u0000",
                "/locks/a\u0001",
                "/locks/a\u001f",
                "/locks/a\u007f",
                "/locks/a\u009f",
                "/locks/a\ud800",
                "/locks/a\uf8ff",
                "/locks/a\ufff0",
                "/locks/a\uffff");
        SoftAssertions softly = new SoftAssertions();
        for (String path : malformed) {
            softly.assertThatThrownBy(() -> new ZkReentrantLock(client, path))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
            softly.assertThatThrownBy(() -> new ZkExclusiveLock(client, path))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
            softly.assertThatThrownBy(() -> new ZkReadWriteLock(client, path))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
            softly.assertThatThrownBy(() -> new ZkMultiLock(client, List.of("/ok", path)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
            softly.assertThatThrownBy(() -> new ZkSemaphore(client, path, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
            softly.assertThatThrownBy(() -> ZkExclusiveLock.semaphoreMutex(client, path))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + path + "'");
        }
        softly.assertAll();
    }

    @Test
    void acquire_byHolderWithNullUnit_throwsAndKeepsTheHoldCount() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();

        assertThatThrownBy(() -> lock.acquire(1, null)).isInstanceOf(NullPointerException.class);

        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.release();
    }

    @Test
    void release_afterTheClientClosed_clearsTheHoldWithoutThrowing() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        lock.acquire();
        client.close();

        lock.release();

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }

    @Test
    void acquire_driverNamesANodeNotAheadOfOurs_throwsIllegalArgumentAndLeavesNoNode() throws Exception {
        LockDriver watchesItself =
                view -> view.ourIndex() == 0 && view.children().size() == 1
                        ? LockDecision.holds()
                        : LockDecision.watch(view.ourNode());
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), watchesItself);
        holder.acquire();

        assertThatThrownBy(() -> broken.acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not ranked before our node")
                .hasMessageContaining(zk.path("lock"));

        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
    }

    @Test
    void acquire_driverReturnsNull_throwsIllegalArgumentAndLeavesNoNode() {
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), view -> null);

        assertThatThrownBy(broken::acquire)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no decision")
                .hasMessageContaining(zk.path("lock"));
    }

    @Test
    void acquire_driverSortDropsOurNode_throwsIllegalArgumentAndLeavesNoNode() throws Exception {
        LockDriver dropsAll = new LockDriver() {
            @Override
            public List<String> sort(java.util.Collection<String> children) {
                return List.of();
            }

            @Override
            public LockDecision decide(LockQueueView view) {
                return LockDecision.holds();
            }
        };
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), dropsAll);

        assertThatThrownBy(broken::acquire)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(zk.path("lock"));
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }

    private static List<Method> publicMethodsOf(Class<?> type) {
        return PublicSurface.of(type).stream()
                .filter(member -> member instanceof Method)
                .map(member -> (Method) member)
                .toList();
    }

    private static Object[] arguments(java.lang.reflect.Executable member, CuratorFramework client) {
        return PublicSurface.sampleArguments(member, client, zk.path("lock"), zk.path("other"));
    }

    private static void releaseTheOnlyNode(TimedLock lock, Callable<List<String>> nodes) throws Exception {
        assertThat(nodes.call()).hasSize(1);
        lock.release();
    }

    /** Nothing was asked of ZooKeeper: not even the container parents of the lock paths exist. */
    private static void assertNoLockPath() {
        try {
            CuratorFramework observer = zk.newClient();
            assertThat(observer.checkExists().forPath(zk.path("lock"))).isNull();
            assertThat(observer.checkExists().forPath(zk.path("other"))).isNull();
        } catch (Exception e) {
            throw new AssertionError("cannot look for the lock paths", e);
        }
    }
}
