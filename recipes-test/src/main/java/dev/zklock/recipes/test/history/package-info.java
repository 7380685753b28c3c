/**
 * Histories of a partition run and the checkers that judge them from outside, in the manner of Jepsen's lock
 * workloads and Knossos: every client JVM records what it invoked and what came back ({@link
 * dev.zklock.recipes.test.history.HistoryWriter}), the nemesis records the faults, and each checker is a pure function
 * of the merged {@link dev.zklock.recipes.test.history.History} that never asks the system under test what happened.
 *
 * <p>The line format, one event per line, fields separated by one TAB: {@code
 * <nanos> <process> <type> <f> <key> <value>} ({@link dev.zklock.recipes.test.history.HistoryEvent}). The stores the
 * workloads write through, {@link dev.zklock.recipes.test.history.FencedStore} and {@link
 * dev.zklock.recipes.test.history.FileCounter}, live in files so that several JVMs share them.
 *
 * <p>The checkers: {@link dev.zklock.recipes.test.history.MutexChecker} (linearizability of each lock's acquires and
 * releases, bounded, and the overlaps a user sees, explained or not), {@link
 * dev.zklock.recipes.test.history.CounterChecker} (updates the unfenced counter lost), {@link
 * dev.zklock.recipes.test.history.FencedSetChecker} (the fenced set: lost and duplicated elements, late writes
 * refused), {@link dev.zklock.recipes.test.history.HoldStateChecker} (HELD claimed after expiry, IN_DOUBT before
 * another grant) and {@link dev.zklock.recipes.test.history.LivenessChecker} (heal to grant, acquires returning in
 * time); {@link dev.zklock.recipes.test.history.HistoryReport} runs them all and sums them per lock kind and library.
 *
 * <p>No method accepts {@code null}. Values and checkers are immutable and thread-safe unless a type says otherwise.
 */
package dev.zklock.recipes.test.history;
