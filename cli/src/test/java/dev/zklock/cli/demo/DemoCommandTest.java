package dev.zklock.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.cli.CommandRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code zklock demo}, as a newcomer first runs it (an embedded server, the default options): every scene plays, the
 * cohort passes its node locally and lets another client in, zklock's and Curator's semaphores share the leases, a
 * leader is elected, crashes and hands over, and every outcome line reads 0 overlaps, 0 timeouts, nothing left.
 */
@Timeout(180)
final class DemoCommandTest {
    @Test
    void demo_defaultRun_everySceneEndsWithNoOverlapNoTimeoutAndNothingLeft() {
        CommandRun run = CommandRun.of("demo");

        assertThat(run.exitCode())
                .as("exit status; output:%n%s%nerrors:%n%s", run.out(), run.err())
                .isZero();
        assertThat(run.out())
                .contains("session expires while holding")
                .contains("a local pass, no request")
                .contains("bob    holds")
                .contains("takes a lease (zklock)")
                .contains("takes a lease (Curator)")
                .contains("carol  downgrades")
                .contains("erin   holds both accounts")
                .contains("reentrant lock done: overlaps 0, timeouts 0, nodes left 0")
                .contains("cohort lock done: overlaps 0, timeouts 0, nodes left 0")
                .contains("semaphore done: overlaps 0, timeouts 0, nodes left 0")
                .contains("read/write lock done: overlaps 0, timeouts 0, nodes left 0")
                .contains("multi-lock done: overlaps 0, timeouts 0, nodes left 0")
                .contains("crash: alice's session ends")
                .contains("bob    leads")
                .contains("hand-over: bob closed, carol leads")
                .contains("hand-over: carol yielded, alice leads")
                .contains("leader election done: overlaps 0, timeouts 0, nodes left 0")
                .contains("demo done: overlaps 0, timeouts 0, nodes left 0");
    }
}
