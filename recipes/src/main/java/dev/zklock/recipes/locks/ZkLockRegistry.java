package dev.zklock.recipes.locks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
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
 * is held, or being acquired, is never forgotten. Every 64th {@code obtain} looks at the next 128 entries, going round
 * the map, so forgetting keeps pace with new keys at a cost per call that does not grow with the map;
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
    /** Every this many obtains, one sweep step. */
    private static final int SWEEP_EVERY = 64;

    /** Entries a sweep step looks at: two per obtain on average, so forgetting keeps up with new keys. */
    private static final int SWEEP_STEP = 2 * SWEEP_EVERY;

    private final CuratorFramework client;
    private final String basePath;
    private final long idleNanos;
    private final Map<String, Entry> locks = new ConcurrentHashMap<>();
    private final AtomicInteger obtained = new AtomicInteger();
    private final ReentrantLock sweeping = new ReentrantLock();
    private Iterator<Map.Entry<String, Entry>> cursor; // guarded by sweeping: where the last sweep step stopped

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
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = Checks.lockPath(basePath);
        Objects.requireNonNull(idleTime, "idleTime");
        Checks.requireArgument(!idleTime.isNegative(), "idle time must not be negative: %s", idleTime);
        this.idleNanos = Checks.toNanos(idleTime);
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
        if (obtained.incrementAndGet() % SWEEP_EVERY == 0) {
            sweepStep();
        }
        Entry entry = locks.compute(path, (p, existing) -> {
            Entry current = existing != null ? existing : new Entry(new ZkReentrantLock(client, p));
            current.lastObtained = System.nanoTime();
            return current;
        });
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
     * Forgets every lock that is not held, not being acquired, and not obtained for the idle time. {@code obtain} does
     * this for 128 entries every 64th call by itself. No ZooKeeper call.
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

    /**
     * Looks at the next {@value #SWEEP_STEP} entries, going round the map, and forgets those that are idle: a cost
     * that does not grow with the number of keys (a full scan every 64th call made {@code obtain} grow with the map).
     * Skipped when another thread is at it.
     */
    private void sweepStep() {
        if (!sweeping.tryLock()) {
            return;
        }
        try {
            long now = System.nanoTime();
            for (int i = 0; i < SWEEP_STEP; i++) {
                if (cursor == null || !cursor.hasNext()) {
                    cursor = locks.entrySet().iterator();
                    if (!cursor.hasNext()) {
                        return;
                    }
                }
                forgetIfIdle(cursor.next(), now);
            }
        } finally {
            sweeping.unlock();
        }
    }

    private boolean forgetIfIdle(Map.Entry<String, Entry> e, long now) {
        Entry entry = e.getValue();
        return now - entry.lastObtained >= idleNanos && !entry.lock.isInUse() && locks.remove(e.getKey(), entry);
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

    private static final class Entry {
        final ZkReentrantLock lock;
        volatile long lastObtained;

        Entry(ZkReentrantLock lock) {
            this.lock = lock;
        }
    }
}
