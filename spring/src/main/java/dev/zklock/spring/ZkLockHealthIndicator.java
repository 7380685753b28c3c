package dev.zklock.spring;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.LockStates;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Actuator's view of zklock on one client: DOWN while the client is not started or not connected, UP otherwise, with
 * the details {@code client} (Curator's state), {@code connection} (the last connection state Curator reported),
 * {@code holdsInDoubt} (holds of the client's locks in doubt now, their connection suspended) and {@code holdsLost}
 * (holds lost since the indicator started: a session ended, a node gone, a time to live run out).
 * It hears of holds through zklock's client-wide {@link LockStates} listener and of the connection through one Curator
 * listener, both removed by {@link #close()}. Spring Boot contributes it to Actuator's health as {@code zklock} ({@link
 * ZkLockHealthContributorAutoConfiguration}).
 *
 * <p>Safe for use by multiple threads. A health check makes no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class ZkLockHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {
    private final CuratorFramework client;
    private final Map<String, LockState> inDoubt = new ConcurrentHashMap<>();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicReference<ConnectionState> connection = new AtomicReference<>();
    private final LockStateListener holdListener = event -> {
        if (event.state() == LockState.IN_DOUBT) {
            inDoubt.put(event.node(), event.state());
        } else {
            inDoubt.remove(event.node());
        }
        if (event.state() == LockState.LOST) {
            lost.incrementAndGet();
        }
    };
    private final ConnectionStateListener connectionListener;

    /**
     * Starts watching the locks and the connection of {@code client}. No ZooKeeper call.
     *
     * @param client the client whose locks to report on
     * @throws NullPointerException if {@code client} is null
     */
    public ZkLockHealthIndicator(CuratorFramework client) {
        super("zklock health check failed");
        this.client = Objects.requireNonNull(client, "client");
        this.connectionListener = (c, state) -> {
            connection.set(state);
            if (state.isConnected()) {
                // The holds still tracked are settled HELD or LOST by the reconnect; a hold released while in doubt
                // is tracked no more, and no event would ever take it off.
                inDoubt.clear();
            }
        };
        client.getConnectionStateListenable().addListener(connectionListener);
        LockStates.addListener(client, holdListener);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        CuratorFrameworkState state = client.getState();
        boolean connected = state == CuratorFrameworkState.STARTED
                && client.getZookeeperClient().isConnected();
        ConnectionState last = connection.get();
        (connected ? builder.up() : builder.down())
                .withDetail("client", state)
                .withDetail("connection", last == null ? (connected ? "CONNECTED" : "NOT_CONNECTED") : last)
                .withDetail("holdsInDoubt", inDoubt.size())
                .withDetail("holdsLost", lost.get());
    }

    /** Stops watching. */
    @Override
    public void close() {
        LockStates.removeListener(client, holdListener);
        client.getConnectionStateListenable().removeListener(connectionListener);
    }
}
