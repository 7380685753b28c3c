package dev.zklock.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code zklock.leader.*} properties of {@link ZkLeaderAutoConfiguration}: where the leader initiator's election
 * lives and how the application context starts it. Not thread-safe: Spring binds it once at start-up.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("zklock.leader")
public final class ZkLeaderProperties {
    /**
     * Absolute path under which the candidate's role names the election (root/role): Spring Integration's ZooKeeper
     * initiator's, /spring-integration/leader, whose candidates elect one leader with zklock's on one path.
     */
    private String root = ZkLeaderInitiator.DEFAULT_ROOT;

    /** Whether the application context starts the leader initiator. */
    private boolean autoStartup = true;

    /** Lifecycle phase of the leader initiator, Spring Integration's initiators' by default. */
    private int phase = Integer.MAX_VALUE - 1000;

    /** Made by Spring. */
    public ZkLeaderProperties() {}

    /**
     * Returns the root of the election paths.
     *
     * @return the root
     */
    public String getRoot() {
        return root;
    }

    /**
     * Sets the root of the election paths.
     *
     * @param root the root
     */
    public void setRoot(String root) {
        this.root = root;
    }

    /**
     * Returns whether the context starts the initiator.
     *
     * @return whether it starts with the context
     */
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * Sets whether the context starts the initiator.
     *
     * @param autoStartup whether it starts with the context
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /**
     * Returns the lifecycle phase.
     *
     * @return the phase
     */
    public int getPhase() {
        return phase;
    }

    /**
     * Sets the lifecycle phase.
     *
     * @param phase the phase
     */
    public void setPhase(int phase) {
        this.phase = phase;
    }
}
