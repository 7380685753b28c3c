package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockNode;
import org.junit.jupiter.api.Test;

/**
 * The simulator's checker on hand-made sequences: a hold is inside from its grant to its release whatever its node's
 * state, and an overlap is explained only when the earlier holder's session ended, or a stranger deleted its node,
 * after its grant.
 */
final class SimCheckerTest {
    private final SimWorld world = new SimWorld(1, 10_000);
    private final SimChecker checker = new SimChecker(world, 1);
    private final SimClient alice;
    private final SimClient bob;

    SimCheckerTest() {
        world.server.makePath(Simulation.EXCLUSIVE_PATH);
        alice = new SimClient("alice", world);
        bob = new SimClient("bob", world);
    }

    @Test
    void granted_aWaiterItsNodeAStrangerDeletedThenTheNextSession_isAViolationOfTheDeletedGrant() {
        LockNode waiter = node(alice);
        strangerDeletes(waiter);
        SimChecker.Held waiterHeld = grant("waiter", alice, waiter); // the node ahead went: granted with no listing
        assertThat(checker.violations())
                .as("alone, a hold on a deleted node is data")
                .isEmpty();

        grant("next", bob, node(bob)); // lists: the waiter's node is gone, so it holds

        assertThat(checker.violations())
                .singleElement()
                .asString()
                .contains(
                        "overlap on " + Simulation.EXCLUSIVE_PATH,
                        "waiter was granted " + waiter.name() + " (its own node), which no longer stood:"
                                + " a stranger deleted its node",
                        "next");
        assertThat(checker.overlaps().explained()).isZero();
        assertThat(world.tallies()).containsEntry("granted on a node that no longer stood", 1L);
        checker.released(waiterHeld);
    }

    @Test
    void granted_whileAHolderWhoseNodeAStrangerDeletedIsInside_isExplainedAndTimed() {
        LockNode first = node(alice);
        SimChecker.Held firstHeld = grant("first", alice, first);
        strangerDeletes(first);

        SimChecker.Held nextHeld = grant("next", bob, node(bob));
        world.after(200, "the first holder is still inside", () -> checker.released(firstHeld));
        world.step(Long.MAX_VALUE);
        checker.released(nextHeld);

        assertThat(checker.violations()).isEmpty();
        assertThat(checker.overlaps().explained()).isEqualTo(1);
        assertThat(checker.overlaps().longestMicros()).isEqualTo(200);
        assertThat(checker.overlaps().firstExplained())
                .singleElement()
                .asString()
                .contains("first: a stranger deleted its node while it held", "next");
    }

    @Test
    void granted_whileAHolderWhoseSessionEndedIsInside_isExplained() {
        SimChecker.Held firstHeld = grant("first", alice, node(alice));
        world.server.endSession(alice.session()); // its node goes with it

        grant("next", bob, node(bob));

        assertThat(checker.violations()).isEmpty();
        assertThat(checker.overlaps().firstExplained())
                .singleElement()
                .asString()
                .contains("first: its session ended while it held");
        checker.released(firstHeld);
    }

    @Test
    void granted_whileAnotherSessionsHolderIsInsideOnAStandingNode_isAViolationOfBothLive() {
        grant("first", alice, node(alice));

        grant("next", bob, node(bob));

        assertThat(checker.violations()).singleElement().asString().contains("(both live)", "first", "next");
    }

    @Test
    void granted_afterTheHolderWhoseNodeWasDeletedReleased_isNoOverlap() {
        LockNode first = node(alice);
        SimChecker.Held firstHeld = grant("first", alice, first);
        strangerDeletes(first);
        checker.released(firstHeld);

        grant("next", bob, node(bob));

        assertThat(checker.violations()).isEmpty();
        assertThat(checker.overlaps().explained()).isZero();
    }

    private LockNode node(SimClient client) {
        return SimNodes.tracked(world, client);
    }

    private void strangerDeletes(LockNode node) {
        checker.strangerDeleted(SimClient.fullPath(node));
        world.server.delete(SimClient.fullPath(node));
    }

    private SimChecker.Held grant(String owner, SimClient client, LockNode node) {
        return checker.granted(owner, client, Hold.of(node, 0), SimChecker.Mode.EXCLUSIVE, "its own node", null);
    }
}
