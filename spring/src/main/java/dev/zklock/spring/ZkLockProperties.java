package dev.zklock.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code zklock.*} properties of {@link ZkLockAutoConfiguration}: the client it starts when the application has
 * no {@code CuratorFramework} bean, and the lock registry's options. Not thread-safe: Spring binds it once at start-up.
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

    /** Session timeout asked for by the client zklock starts; the server may grant less or more. */
    private Duration sessionTimeout = Duration.ofSeconds(60);

    /** Connection timeout of the client zklock starts. */
    private Duration connectionTimeout = Duration.ofSeconds(15);

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
     * Returns the lock registry's options.
     *
     * @return the options, bound from {@code zklock.registry.*}
     */
    public Registry getRegistry() {
        return registry;
    }

    /**
     * The {@code zklock.registry.*} properties: the options of {@link ZkSpringLockRegistry.Builder}.
     *
     * @since 0.1.0
     */
    public static final class Registry {
        /** Root of every lock path; Spring's ZookeeperLockRegistry uses the same one by default. */
        // a literal, not ZkSpringLockRegistry.DEFAULT_ROOT, so that the configuration metadata shows it
        private String root = "/SpringIntegration-LockRegistry";

        /** Whether the threads of this application pass each lock among themselves behind one ZooKeeper node. */
        private boolean localHandOff = true;

        /** How long a lock keeps its node after its last local unlock; needs local hand-off. */
        private Duration keepIdle = Duration.ZERO;

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
    }
}
