package dev.zklock.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code zklock.*} properties of {@link ZkLockAutoConfiguration}: the client it starts from
 * {@code zklock.connect-string} when the application has no {@code CuratorFramework} bean (the timeouts, retry,
 * namespace and authentication apply to that client only), and the lock registry's options. Not thread-safe: Spring
 * binds it once at start-up.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("zklock")
public final class ZkLockProperties {
    /**
     * ZooKeeper connect string (host:port[,host:port...][/chroot]) of the client to start when the application has no
     * CuratorFramework bean; without it and without such a bean, no lock registry is made.
     */
    private String connectString;

    /**
     * Namespace of the client zklock starts, without a leading slash: Curator prefixes every path with it, the lock
     * registry's root included. None by default.
     */
    private String namespace;

    /** Session timeout asked for by the client zklock starts; the server may grant less or more. */
    private Duration sessionTimeout = Duration.ofSeconds(60);

    /** Connection timeout of the client zklock starts. */
    private Duration connectionTimeout = Duration.ofSeconds(15);

    private final Retry retry = new Retry();

    private final Auth auth = new Auth();

    private final Registry registry = new Registry();

    /**
     * Returns the connect string of the client to start, or null.
     *
     * @return the connect string
     */
    public String getConnectString() {
        return connectString;
    }

    /**
     * Sets the connect string of the client to start.
     *
     * @param connectString host:port[,host:port...][/chroot]
     */
    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    /**
     * Returns the namespace of the client to start, or null.
     *
     * @return the namespace
     */
    public String getNamespace() {
        return namespace;
    }

    /**
     * Sets the namespace of the client to start.
     *
     * @param namespace a ZooKeeper path without its leading slash
     */
    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /**
     * Returns the session timeout of the client to start.
     *
     * @return the timeout
     */
    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    /**
     * Sets the session timeout of the client to start.
     *
     * @param sessionTimeout the timeout
     */
    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * Returns the connection timeout of the client to start.
     *
     * @return the timeout
     */
    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    /**
     * Sets the connection timeout of the client to start.
     *
     * @param connectionTimeout the timeout
     */
    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    /**
     * Returns the retry policy of the client to start.
     *
     * @return the options, bound from {@code zklock.retry.*}
     */
    public Retry getRetry() {
        return retry;
    }

    /**
     * Returns the authentication of the client to start.
     *
     * @return the options, bound from {@code zklock.auth.*}
     */
    public Auth getAuth() {
        return auth;
    }

    /**
     * Returns the lock registry's options.
     *
     * @return the options, bound from {@code zklock.registry.*}
     */
    public Registry getRegistry() {
        return registry;
    }

    /**
     * The {@code zklock.retry.*} properties: Curator's {@code ExponentialBackoffRetry} of the client zklock starts.
     *
     * @since 0.1.0
     */
    public static final class Retry {
        /** Sleep before the first retry of a failed ZooKeeper operation; each later one sleeps up to twice as long. */
        private Duration baseSleep = Duration.ofSeconds(1);

        /** How many times a failed ZooKeeper operation is retried; Curator allows at most 29. */
        private int maxRetries = 3;

        /**
         * Returns the sleep before the first retry.
         *
         * @return the sleep
         */
        public Duration getBaseSleep() {
            return baseSleep;
        }

        /**
         * Sets the sleep before the first retry.
         *
         * @param baseSleep the sleep
         */
        public void setBaseSleep(Duration baseSleep) {
            this.baseSleep = baseSleep;
        }

        /**
         * Returns how many times a failed operation is retried.
         *
         * @return the count
         */
        public int getMaxRetries() {
            return maxRetries;
        }

        /**
         * Sets how many times a failed operation is retried.
         *
         * @param maxRetries the count
         */
        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }
    }

    /**
     * The {@code zklock.auth.*} properties: the authentication the client zklock starts adds to its session, as
     * ZooKeeper's {@code addAuthInfo}.
     *
     * @since 0.1.0
     */
    public static final class Auth {
        /** Authentication scheme, for example "digest"; none by default. */
        private String scheme;

        /** Authentication string of the scheme, for example "user:password" for digest. */
        private String credentials;

        /**
         * Returns the authentication scheme, or null.
         *
         * @return the scheme
         */
        public String getScheme() {
            return scheme;
        }

        /**
         * Sets the authentication scheme.
         *
         * @param scheme for example {@code digest}
         */
        public void setScheme(String scheme) {
            this.scheme = scheme;
        }

        /**
         * Returns the authentication string, or null.
         *
         * @return the string
         */
        public String getCredentials() {
            return credentials;
        }

        /**
         * Sets the authentication string.
         *
         * @param credentials for example {@code user:password} for digest
         */
        public void setCredentials(String credentials) {
            this.credentials = credentials;
        }

        @Override
        public String toString() {
            return "Auth[" + scheme + (credentials == null ? "]" : ", credentials hidden]");
        }
    }

    /**
     * The {@code zklock.registry.*} properties: the options of {@link ZkSpringLockRegistry.Builder}.
     *
     * @since 0.1.0
     */
    public static final class Registry {
        /**
         * Root of every lock path, relative to the client's namespace; Spring's ZookeeperLockRegistry uses the same one
         * by default. Not used when a ZkLockKeyToPath bean exists.
         */
        // a literal, not ZkSpringLockRegistry.DEFAULT_ROOT, so that the configuration metadata shows it
        private String root = "/SpringIntegration-LockRegistry";

        /** Whether the threads of this application pass each lock among themselves behind one ZooKeeper node. */
        private boolean localHandOff = true;

        /** How long a lock keeps its node after its last local unlock; needs local hand-off. */
        private Duration keepIdle = Duration.ZERO;

        /**
         * Whether every lock reads its queue from one persistent recursive watch per client on the root (ZooKeeper 3.6
         * or later): a create and a delete per lock, every client hearing of every change under the root.
         */
        private boolean queueView;

        /**
         * How long a lock may go unused (not held, not waited for, not obtained) before the registry forgets it; unset
         * keeps the registry's own default.
         */
        private Duration idleTime;

        /** How many locks the registry keeps at most (the least recently used unused ones go beyond it). */
        private int cacheCapacity = 30_000;

        /**
         * Time to live of a hold taken without one (lock() and tryLock(...) as Spring's LockRegistry has them); unset
         * keeps the registry's own default.
         */
        private Duration defaultTtl;

        /**
         * Returns the root of every lock path.
         *
         * @return the root
         */
        public String getRoot() {
            return root;
        }

        /**
         * Sets the root of every lock path.
         *
         * @param root an absolute ZooKeeper path
         */
        public void setRoot(String root) {
            this.root = root;
        }

        /**
         * Tells whether local hand-off is on.
         *
         * @return {@code true} by default
         */
        public boolean isLocalHandOff() {
            return localHandOff;
        }

        /**
         * Turns local hand-off on or off.
         *
         * @param localHandOff {@code false} to have every thread take its own place in ZooKeeper's queue
         */
        public void setLocalHandOff(boolean localHandOff) {
            this.localHandOff = localHandOff;
        }

        /**
         * Tells whether the locks read their queues from the client's queue view.
         *
         * @return {@code false} by default
         */
        public boolean isQueueView() {
            return queueView;
        }

        /**
         * Turns the queue view on or off.
         *
         * @param queueView {@code true} for one watch per client on the root instead of a listing and a watch per lock
         */
        public void setQueueView(boolean queueView) {
            this.queueView = queueView;
        }

        /**
         * Returns how long a lock keeps its node after its last local unlock.
         *
         * @return the time; zero by default
         */
        public Duration getKeepIdle() {
            return keepIdle;
        }

        /**
         * Sets how long a lock keeps its node after its last local unlock.
         *
         * @param keepIdle the time; zero deletes the node at the last unlock
         */
        public void setKeepIdle(Duration keepIdle) {
            this.keepIdle = keepIdle;
        }

        /**
         * Returns how many locks the registry keeps at most.
         *
         * @return the capacity; 30,000 by default, as Spring's ZooKeeper registry
         */
        public int getCacheCapacity() {
            return cacheCapacity;
        }

        /**
         * Sets how many locks the registry keeps at most.
         *
         * @param cacheCapacity at least 1
         */
        public void setCacheCapacity(int cacheCapacity) {
            this.cacheCapacity = cacheCapacity;
        }

        /**
         * Returns how long an unused lock is kept, or null for the registry's default.
         *
         * @return the time
         */
        public Duration getIdleTime() {
            return idleTime;
        }

        /**
         * Sets how long an unused lock is kept.
         *
         * @param idleTime the time
         */
        public void setIdleTime(Duration idleTime) {
            this.idleTime = idleTime;
        }

        /**
         * Returns the time to live of a hold taken without one, or null for the registry's default.
         *
         * @return the time to live
         */
        public Duration getDefaultTtl() {
            return defaultTtl;
        }

        /**
         * Sets the time to live of a hold taken without one.
         *
         * @param defaultTtl the time to live
         */
        public void setDefaultTtl(Duration defaultTtl) {
            this.defaultTtl = defaultTtl;
        }
    }
}
