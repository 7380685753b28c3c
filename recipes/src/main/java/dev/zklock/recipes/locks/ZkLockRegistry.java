package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.CohortSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

/**
 * Reentrant locks by key, under one base path: lock per entity (an order, an account) without making a lock object by
 * hand for each. The lock of key {@code k} is a {@link ZkReentrantLock} on {@code basePath + "/" + encode(k)}; keys
 * are encoded into legal node names (letters, digits, {@code -}, {@code _} and {@code .} stay; every other character
 * becomes {@code %XX} per UTF-8 byte, as do the names {@code .} and {@code ..}), so any key is safe and two keys never
 * share a lock.
 *
 * <p>Within one registry, {@link #obtain(String)} returns the same instance for the same key for as long as anything
 * can still use it, so a thread never holds one instance of a key and waits behind its own node through another. The
 * registry keeps an instance while a thread holds or is acquiring it and for the idle time (one minute by default)
 * after its last {@code obtain}; then it lets go of it, so a service can lock per entity without growing without
 * bound. An instance let go of is still the key's while something else refers to it (a caller that obtained it and
 * has not acquired it yet, say): the registry refers to it weakly, and forgets the key only once the garbage collector
 * has found the instance unreachable. Idle instances are looked for on the timer thread of the client's zklock
 * context, every half idle time (at least every 100 ms), whether or not anybody calls {@code obtain}, for as long as
 * the registry has entries and its client is open; {@code obtain} itself never scans the map. {@link #forgetIdle()}
 * looks at every entry now.
 *
 * <pre>{@code
 * ZkLockRegistry orders = new ZkLockRegistry(client, "/locks/orders");
 * ZkReentrantLock lock = orders.obtain(orderId);
 * lock.acquire();
 * try {
 *     process(orderId, lock.fencingToken());
 * } finally {
 *     lock.release();
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@code obtain} costs no ZooKeeper call; the locks cost what a {@link ZkReentrantLock} costs.
 *
 * @since 0.1.0
 */
public final class ZkLockRegistry {
    private static final int MAX_KEY_LENGTH = 512;

    private final CuratorFramework client;
    private final String basePath;
    private final KeyedLocks<ZkReentrantLock> locks;
    private final CohortSettings cohort; // null: locks without local hand-off
    private final boolean queueView; // its locks read their queues from the client's view of the base path

    /**
     * Creates a registry whose idle locks are forgotten after one minute. No ZooKeeper call.
     *
     * @param client the client for every lock
     * @param basePath the parent path of every lock, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code basePath} is not a valid ZooKeeper path
     */
    public ZkLockRegistry(CuratorFramework client, String basePath) {
        this(client, basePath, Duration.ofMinutes(1));
    }

    /**
     * Creates a registry whose locks are forgotten after {@code idleTime} unused and not held. No ZooKeeper call.
     *
     * @param client the client for every lock
     * @param basePath the parent path of every lock, absolute, relative to the client's namespace
     * @param idleTime how long an unused, unheld lock is kept; zero lets go of it at the next sweep
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code basePath} is not a valid ZooKeeper path or {@code idleTime} is
     *     negative
     */
    public ZkLockRegistry(CuratorFramework client, String basePath, Duration idleTime) {
        this(client, basePath, idleTime, null, false);
    }

    private ZkLockRegistry(
            CuratorFramework client, String basePath, Duration idleTime, CohortSettings cohort, boolean queueView) {
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = Checks.lockPath(basePath);
        this.locks = new KeyedLocks<>(client, idleTime, (lock, now) -> lock.isInUse());
        this.cohort = cohort;
        this.queueView = queueView;
    }

    /**
     * Returns a builder of a registry under {@code basePath}, for the options a constructor does not take: local
     * hand-off and caching of an idle node for every lock it hands out ({@link ZkLockBuilder}), and the idle time. No
     * ZooKeeper call.
     *
     * @param client the client for every lock
     * @param basePath the parent path of every lock, absolute, relative to the client's namespace
     * @return a builder with no option set: it builds a registry like {@code new ZkLockRegistry(client, basePath)}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code basePath} is not a valid ZooKeeper path
     */
    public static Builder builder(CuratorFramework client, String basePath) {
        return new Builder(client, basePath);
    }

    /**
     * Builds a {@link ZkLockRegistry} whose locks share the builder's options; see {@link ZkLockBuilder}. A lock that
     * keeps an idle node is in use, and is not forgotten, until its node is released. Not thread-safe.
     *
     * @since 0.1.0
     */
    public static final class Builder extends ZkLockBuilder<Builder, ZkLockRegistry> {
        private Duration idleTime = Duration.ofMinutes(1);

        private Builder(CuratorFramework client, String basePath) {
            super(client, basePath);
        }

        /**
         * Sets how long an unused, unheld lock is kept before it is forgotten.
         *
         * @param idleTime the time; zero lets go of it at the next sweep; one minute by default
         * @return this builder
         * @throws NullPointerException if {@code idleTime} is null
         * @throws IllegalArgumentException if {@code idleTime} is negative
         */
        public Builder idleTime(Duration idleTime) {
            Objects.requireNonNull(idleTime, "idleTime");
            Checks.requireArgument(!idleTime.isNegative(), "idle time must not be negative: %s", idleTime);
            this.idleTime = idleTime;
            return this;
        }

        @Override
        public ZkLockRegistry build() {
            return new ZkLockRegistry(client(), path(), idleTime, cohortSettings(), usesQueueView());
        }
    }

    /**
     * Returns the lock of {@code key}: the same instance as long as it is in use. No ZooKeeper call.
     *
     * @param key any non-empty string of at most 512 characters
     * @return the reentrant lock of the key
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is empty or longer than 512 characters
     */
    public ZkReentrantLock obtain(String key) {
        return locks.obtain(pathOf(key), this::newLock);
    }

    /**
     * Returns the lock path of {@code key}: the base path and the key, encoded.
     *
     * @param key the key, as for {@link #obtain(String)}
     * @return the path, relative to the client's namespace
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is empty or longer than 512 characters
     */
    public String pathOf(String key) {
        Objects.requireNonNull(key, "key");
        Checks.requireArgument(!key.isEmpty(), "lock key must not be empty");
        if (key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException(String.format(
                    "lock key of %d characters is longer than %d: '%s...'",
                    key.length(), MAX_KEY_LENGTH, key.substring(0, 40)));
        }
        return ZKPaths.makePath(basePath, encode(key));
    }

    /**
     * Lets go, now, of every lock that is not held, not being acquired, and not obtained for the idle time, and forgets
     * the keys whose instances were let go of and are no longer referenced anywhere. The client's timer does this by
     * itself, every half idle time (see the class documentation); {@code obtain} never does. No ZooKeeper call.
     *
     * @return how many locks were let go of
     */
    public int forgetIdle() {
        return locks.forgetIdle();
    }

    private ZkReentrantLock newLock(String path) {
        return ZkReentrantLock.forRegistry(client, path, cohort, queueView ? basePath : null);
    }

    /**
     * Returns how many locks the registry keeps now (held, being acquired, or obtained within the idle time): for
     * monitoring. Instances it has let go of are not counted, even while something else still refers to them.
     *
     * @return the number of lock instances kept
     */
    public int size() {
        return locks.size();
    }

    /** Returns how many keys the registry knows now: those it keeps, and those let go of and not yet collected. */
    int keys() {
        return locks.keys();
    }

    /**
     * Returns the base path.
     *
     * @return the parent path of every lock
     */
    public String basePath() {
        return basePath;
    }

    static String encode(String key) {
        boolean dotsOnly = key.equals(".") || key.equals("..");
        StringBuilder name = new StringBuilder();
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            boolean plain = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || (c == '.' && !dotsOnly);
            if (plain) {
                name.append(c);
            } else {
                name.append('%')
                        .append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return name.toString();
    }

    @Override
    public String toString() {
        return "ZkLockRegistry[" + basePath + ", " + locks.keys() + " locks]";
    }
}
