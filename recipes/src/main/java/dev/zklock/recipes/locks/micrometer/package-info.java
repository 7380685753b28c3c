/**
 * The optional Micrometer bindings of zklock: its lock metrics, {@link
 * dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics}, and its tracing through the Observation API, {@link
 * dev.zklock.recipes.locks.micrometer.MicrometerLockObservations}. Only this package needs {@code micrometer-core} or
 * {@code micrometer-observation} on the class path (optional dependencies of {@code zklock-recipes}).
 *
 * <p><b>Null policy</b> and <b>thread safety</b> as in {@code dev.zklock.recipes.locks}: no {@code null} arguments,
 * every type safe for use by multiple threads.
 */
package dev.zklock.recipes.locks.micrometer;
