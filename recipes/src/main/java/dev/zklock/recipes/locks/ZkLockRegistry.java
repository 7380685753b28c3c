package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.ContextTimer;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

/**
 * Reentrant locks by key, under one base path: lock per entity (an order, an account) without making a lock object by
 * hand for each. The lock of key {@code k} is a {@link ZkReentrantLock} on {@code basePath + "/" + encode(k)}; keys
 * are encoded into legal node names (letters, digits, {@code -}, {@code _} and {@code .} stay; every other character
 * becomes {@code %XX} per UTF-8 byte, as do the names {@code .} and {@code ..}), so any key is safe and two keys never
 * share a lock.
 *
 * <p>Within one registry, {@link #obtain(String)} returns the same instance for the same key for as long as the
 * instance is in use. An instance that no thread holds or is acquiring, and that nobody obtained for the idle time
 * (one minute by default), is forgotten, so a service can lock per entity without growing without bound; a lock that
 * is held, or being acquired, is never forgotten. Idle instances are looked for on the timer thread of the client's
 * zklock context, every half idle time (at least every 100 ms), whether or not anybody calls {@code obtain}, for as
 * long as the registry has entries and its client is open; {@code obtain} itself never scans the map.
 * {@link #forgetIdle()} looks at every entry now. Keep using the instance you obtained, or obtain it again: an
 * instance forgotten while idle still works, but a later {@code obtain} of its key returns a new one.
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
    private static final long MIN_SWEEP_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Entries one run of the timer looks at, so that a large map does not hold up the client's other timed work. */
    private static final int SWEEP_STEP = 4096;

    private final CuratorFramework client;
    private final String basePath;
    private final long idleNanos;
    private final Map<String, Entry> locks = new ConcurrentHashMap<>();
    private final ContextTimer timer;
    private final CohortSettings cohort; // null: locks without local hand-off
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private Iterator<Map.Entry<String, Entry>> cursor; // confined to the timer thread: where the last step stopped

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
     * @param idleTime how long an unused, unheld lock is kept; zero forgets it at the next sweep
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code basePath} is not a valid ZooKeeper path or {@code idleTime} is
     *     negative
     */
    public ZkLockRegistry(CuratorFramework client, String basePath, Duration idleTime) {
        this(client, basePath, idleTime, null);
    }

    private ZkLockRegistry(CuratorFramework client, String basePath, Duration idleTime, CohortSettings cohort) {
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = Checks.lockPath(basePath);
        Objects.requireNonNull(idleTime, "idleTime");
        Checks.requireArgument(!idleTime.isNegative(), "idle time must not be negative: %s", idleTime);
        this.idleNanos = Checks.toNanos(idleTime);
        this.timer = ClientContext.of(client).timer();
        this.cohort = cohort;
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
         * @param idleTime the time; zero forgets it at the next sweep; one minute by default
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
            return new ZkLockRegistry(client(), path(), idleTime, cohortSettings());
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
        String path = pathOf(key);
        Entry entry = locks.compute(path, (p, existing) -> {
            Entry current = existing != null ? existing : new Entry(newLock(p));
            current.lastObtained = System.nanoTime();
            return current;
        });
        if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            Sweep.schedule(this, sweepPeriodNanos());
        }
        return entry.lock;
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
     * Forgets every lock that is not held, not being acquired, and not obtained for the idle time, now. The client's
     * timer does this by itself, every half idle time (see the class documentation); {@code obtain} never does. No
     * ZooKeeper call.
     *
     * @return how many locks were forgotten
     */
    public int forgetIdle() {
        long now = System.nanoTime();
        int forgotten = 0;
        for (Map.Entry<String, Entry> e : locks.entrySet()) {
            if (forgetIfIdle(e, now)) {
                forgotten++;
            }
        }
        return forgotten;
    }

    private ZkReentrantLock newLock(String path) {
        return cohort == null ? new ZkReentrantLock(client, path) : ZkReentrantLock.withCohort(client, path, cohort);
    }

    private long sweepPeriodNanos() {
        return Math.max(idleNanos / 2, MIN_SWEEP_PERIOD_NANOS);
    }

    /**
     * One step of the timer's sweep: looks at the next {@value #SWEEP_STEP} entries, going round the map, and forgets
     * those that are idle, so that one step's cost does not grow with the number of keys; returns whether the round is
     * over. Runs on the timer thread only.
     */
    private boolean sweepStep() {
        long now = System.nanoTime();
        for (int i = 0; i < SWEEP_STEP; i++) {
            if (cursor == null) {
                cursor = locks.entrySet().iterator();
            }
            if (!cursor.hasNext()) {
                cursor = null;
                return true;
            }
            forgetIfIdle(cursor.next(), now);
        }
        return false;
    }

    /**
     * Forgets the entry if it is still the key's, idle, and unused, all seen inside the map's compute for the key, so an
     * {@code obtain} of the key (which computes too) comes either before the look, and keeps the entry, or after the
     * entry is gone, and makes a new one: never a lock handed out and forgotten at once.
     */
    private boolean forgetIfIdle(Map.Entry<String, Entry> e, long now) {
        Entry entry = e.getValue();
        boolean[] forgotten = new boolean[1];
        locks.computeIfPresent(e.getKey(), (path, current) -> {
            forgotten[0] = current == entry && now - entry.lastObtained >= idleNanos && !entry.lock.isInUse();
            return forgotten[0] ? null : current;
        });
        return forgotten[0];
    }

    /**
     * Returns how many locks the registry keeps now: for monitoring.
     *
     * @return the number of lock instances kept
     */
    public int size() {
        return locks.size();
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
        return "ZkLockRegistry[" + basePath + ", " + locks.size() + " locks]";
    }

    /**
     * The timer's sweep of one registry: it holds the registry weakly, so a registry nobody uses can go, and stops when
     * the map is empty (the next {@code obtain} of a new key starts it again).
     */
    private static final class Sweep implements Runnable {
        private final WeakReference<ZkLockRegistry> registry;

        private Sweep(ZkLockRegistry registry) {
            this.registry = new WeakReference<>(registry);
        }

        static void schedule(ZkLockRegistry registry, long delayNanos) {
            if (registry.timer.schedule(new Sweep(registry), delayNanos) == null) {
                registry.sweepScheduled.set(false); // the client is closed
            }
        }

        @Override
        public void run() {
            ZkLockRegistry swept = registry.get();
            if (swept == null) {
                return;
            }
            if (!swept.sweepStep()) {
                schedule(swept, 0); // more of the map to look at: let the timer's other work in first
                return;
            }
            swept.sweepScheduled.set(false);
            if (!swept.locks.isEmpty() && swept.sweepScheduled.compareAndSet(false, true)) {
                schedule(swept, swept.sweepPeriodNanos());
            }
        }
    }

    private static final class Entry {
        final ZkReentrantLock lock;
        volatile long lastObtained;

        Entry(ZkReentrantLock lock) {
            this.lock = lock;
        }
    }
}
