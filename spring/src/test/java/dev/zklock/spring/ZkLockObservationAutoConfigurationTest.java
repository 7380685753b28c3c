package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ZkLockObservationAutoConfiguration} against a real server in both {@link ClientMode}s: with an {@code
 * ObservationRegistry} bean, every acquisition and hold of the registry's locks is observed.
 */
@Timeout(60)
final class ZkLockObservationAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @ParameterizedTest
    @EnumSource(ClientMode.class)
    void observations_inEachClientMode_observeEachAcquisitionAndHold(ClientMode mode) {
        TestObservationRegistry observations = TestObservationRegistry.create();
        mode.runner(zk).withBean(ObservationRegistry.class, () -> observations).run(context -> {
            assertThat(context).hasSingleBean(ZkLockObservationBinding.class);
            context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo("zklock.lock.acquire")
                    .that()
                    .hasLowCardinalityKeyValue("zklock.lock.outcome", "granted")
                    .hasHighCardinalityKeyValue("zklock.lock.path", zk.path("locks/key"))
                    .hasBeenStopped();
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo("zklock.lock.hold")
                    .that()
                    .hasBeenStopped();
        });
    }

    @Test
    void observations_withoutAnObservationRegistryBean_areNotWired() {
        ClientMode.APPLICATION_CLIENT
                .runner(zk)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockObservationBinding.class));
    }
}
