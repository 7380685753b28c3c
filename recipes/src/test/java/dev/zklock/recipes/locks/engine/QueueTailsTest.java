package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's newest node per lock path, and the proof of the node right before ours; no ZooKeeper. */
final class QueueTailsTest {
    private static final String PATH = "/locks/a";
    private static final long SESSION = 0x10L;

    private final QueueTails tails = new QueueTails();
    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath lock = new LockPath(client, PATH, "lock-", LockDriver.exclusive(), null);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void created_rightAfterANodeOfOurs_namesIt() {
        assertThat(tails.sending(PATH, SESSION, prefix("a"))).isNull();
        assertThat(tails.sending(PATH, SESSION, prefix("b"))).isEqualTo(prefix("a"));

        assertThat(answer("a", 7)).isNull();
        assertThat(answer("b", 8)).isEqualTo(prefix("a") + "0000000007");
    }

    /** The node itself, whose path string a waiter behind it watches by, with no copy of its own. */
    @Test
    void created_rightAfterANodeOfOurs_givesThatNodeItself() {
        LockNode first = node("a", 7);
        tails.sending(PATH, SESSION, prefix("a"));
        tails.created(PATH, SESSION, prefix("a"), first);
        tails.sending(PATH, SESSION, prefix("b"));

        assertThat(tails.created(PATH, SESSION, prefix("b"), node("b", 8))).isSameAs(first);
    }

    @Test
    void created_withANodeOfAnotherClientBetween_namesNone() {
        made("a", 7);

        assertThat(made("b", 9)).isNull();
    }

    @Test
    void created_afterOurNodeRightBeforeWasDeleted_namesNone() {
        made("a", 7);
        tails.sending(PATH, SESSION, prefix("b"));
        tails.deleting(PATH, prefix("a") + "0000000007");

        assertThat(answer("b", 8)).isNull();
    }

    /** A runner may take our node from the listing and delete it before its create's reply is read here. */
    @Test
    void created_ofANodeDeletedBeforeItsReplyWasRead_isNeverNamed() {
        tails.sending(PATH, SESSION, prefix("a"));
        tails.deleting(PATH, prefix("a") + "0000000007");
        answer("a", 7);

        assertThat(tails.sending(PATH, SESSION, prefix("b"))).isNull(); // nothing of ours is on its way or stands
        assertThat(answer("b", 8)).isNull();
    }

    @Test
    void created_onAnotherSession_namesNone() {
        made("a", 7);

        assertThat(tails.sending(PATH, SESSION + 1, prefix("b"))).isNull();
        assertThat(tails.created(PATH, SESSION + 1, prefix("b"), node("b", 8))).isNull();
    }

    @Test
    void created_afterTheSequenceWrappedBelowZero_namesNone() {
        made("a", Integer.MAX_VALUE);
        tails.sending(PATH, SESSION, prefix("b"));

        assertThat(tails.created(
                        PATH, SESSION, prefix("b"), new LockNode(lock, prefix("b") + Integer.MIN_VALUE, 1, SESSION)))
                .isNull();
    }

    @Test
    void deleting_everyNodeAndReply_leavesNoEntry() {
        tails.sending(PATH, SESSION, prefix("a"));
        tails.sending(PATH, SESSION, prefix("b"));
        answer("a", 7);
        tails.created(PATH, SESSION, prefix("b"), null); // failed
        tails.deleting(PATH, prefix("a") + "0000000007");

        assertThat(tails.size()).isZero();
    }

    @Test
    void held_newestNodeWithNothingOnItsWay_keepsTheNodeAloneAndStillNamesItToTheNextCreate() {
        madeAndHeld("a", 7);

        assertThat(tails.keepsNodeAlone(PATH)).isTrue();
        assertThat(tails.sending(PATH, SESSION, prefix("b"))).isEqualTo(prefix("a") + "0000000007");
        assertThat(tails.keepsNodeAlone(PATH)).isFalse();
        assertThat(answer("b", 8)).isEqualTo(prefix("a") + "0000000007");
    }

    /** A runner that finds our node in the pipelined listing has it granted before its create's reply is read here. */
    @Test
    void held_beforeItsCreatesReplyWasRead_keepsTheNodeAloneOnceTheReplyIs() {
        tails.sending(PATH, SESSION, prefix("a"));
        tails.held(PATH, node("a", 7));

        assertThat(tails.keepsNodeAlone(PATH)).isFalse();
        answer("a", 7);
        assertThat(tails.keepsNodeAlone(PATH)).isTrue();
        assertThat(made("b", 8)).isEqualTo(prefix("a") + "0000000007");
    }

    @Test
    void held_notTheNewestNode_keepsTheTailUntilTheNewestGoes() {
        made("a", 7);
        tails.sending(PATH, SESSION, prefix("b"));
        tails.held(PATH, node("a", 7));

        assertThat(tails.keepsNodeAlone(PATH)).isFalse();
        answer("b", 8);
        tails.deleting(PATH, prefix("b") + "0000000008");
        assertThat(tails.keepsNodeAlone(PATH)).isFalse(); // a is no longer known as our newest: nothing stands for it
        assertThat(tails.sending(PATH, SESSION, prefix("c"))).isNull();
    }

    @Test
    void deleting_theHeldNodeKeptAlone_leavesNoEntry() {
        madeAndHeld("a", 7);
        tails.deleting(PATH, prefix("a") + "0000000007");

        assertThat(tails.size()).isZero();
    }

    @Test
    void sending_onAnotherSessionThanTheHeldNodeKeptAlone_namesNone() {
        madeAndHeld("a", 7);

        assertThat(tails.sending(PATH, SESSION + 1, prefix("b"))).isNull();
    }

    /** Sends a create, reads its reply at once, and tells that its node was granted. */
    private void madeAndHeld(String id, int sequence) {
        made(id, sequence);
        tails.held(PATH, node(id, sequence));
    }

    private LockNode node(String id, int sequence) {
        return new LockNode(lock, prefix(id) + String.format("%010d", sequence), 1, SESSION);
    }

    private static String prefix(String id) {
        return "_c_" + id + "-lock-";
    }

    /** Sends a create and reads its reply at once; returns the name of the node of ours right before it. */
    private String made(String id, int sequence) {
        tails.sending(PATH, SESSION, prefix(id));
        return answer(id, sequence);
    }

    /**
     * Reads the reply of the create sent with {@code id}: its node made with {@code sequence}; returns the name of the
     * node of ours right before it, or null.
     */
    private String answer(String id, int sequence) {
        LockNode before = tails.created(PATH, SESSION, prefix(id), node(id, sequence));
        return before == null ? null : before.name();
    }
}
