package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.LockNode;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The engine's own {@code ConnectionTracker} on a simulated client, told of its connection as Curator's listener is: a
 * suspension puts a hold IN_DOUBT at once; the check after a reconnect is a request on the simulated session, so the
 * hold is HELD again only once its answer is handed over (an event of the seed); a node gone meanwhile, or a session
 * the server ended, makes the hold LOST.
 */
final class SimTrackerTest {
    private static final long SESSION_MICROS = 10_000;

    private final SimWorld world = new SimWorld(1, SESSION_MICROS);
    private final SimClient client;

    SimTrackerTest() {
        world.server.makePath(Simulation.EXCLUSIVE_PATH);
        client = new SimClient("client", world);
    }

    @Test
    void reconnected_onItsSession_isHeldAgainOnlyOnceTheListingOfTheSessionsNodesIsAnswered() {
        LockNode node = SimNodes.tracked(world, client);
        assertThat(node.observedState()).isEqualTo(LockState.HELD);

        client.suspend(SESSION_MICROS / 4);
        assertThat(node.observedState()).isEqualTo(LockState.IN_DOUBT);
        runUntil(client::isConnected);
        assertThat(node.observedState())
                .as("connected again, the listing of its session's nodes not answered yet")
                .isEqualTo(LockState.IN_DOUBT);

        runUntil(() -> node.observedState() != LockState.IN_DOUBT);
        assertThat(node.observedState()).isEqualTo(LockState.HELD);
    }

    @Test
    void reconnected_itsNodeDeletedMeanwhile_isLost() {
        LockNode node = SimNodes.tracked(world, client);
        client.suspend(SESSION_MICROS / 4);
        world.server.delete(SimClient.fullPath(node));

        runUntil(() -> node.observedState() != LockState.IN_DOUBT);

        assertThat(node.observedState()).isEqualTo(LockState.LOST);
        assertThat(client.isConnected()).isTrue();
    }

    @Test
    void sessionEndedOnTheServer_isLostAndTheClientConnectsOnANewSession() {
        LockNode node = SimNodes.tracked(world, client);
        long before = client.session();
        client.expireOnServer();
        assertThat(node.observedState()).isEqualTo(LockState.IN_DOUBT);

        runUntil(client::isConnected);

        assertThat(node.observedState()).isEqualTo(LockState.LOST);
        assertThat(client.session()).isNotEqualTo(before);
    }

    /** Runs the seed's events until {@code done} says so; fails if it does not within ten sessions' time. */
    private void runUntil(BooleanSupplier done) {
        long until = world.now() + 10 * SESSION_MICROS;
        while (!done.getAsBoolean()) {
            assertThat(world.step(until))
                    .as("an event left before the condition holds")
                    .isTrue();
        }
    }
}
