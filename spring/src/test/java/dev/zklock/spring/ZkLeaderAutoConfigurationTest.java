package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;

/**
 * {@link ZkLeaderAutoConfiguration} with Spring Boot's {@link ApplicationContextRunner} against a real server: an
 * initiator for the single {@link Candidate} bean and none without one or with two, back-off on the application's own
 * initiator, the {@code zklock.leader.*} properties and their metadata.
 */
@Timeout(60)
final class ZkLeaderAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private ApplicationContextRunner runner() {
        return ClientMode.APPLICATION_CLIENT.runner(zk).withPropertyValues("zklock.leader.root=" + zk.path("leader"));
    }

    @Test
    void initiator_withACandidateBean_isMadeStartedAndLeads() throws Exception {
        List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();
        CuratorFramework reader = zk.newClient();
        String path = zk.path("leader") + "/billing";
        runner().withBean(Candidate.class, () -> new DefaultCandidate("node-1", "billing"))
                .withBean(ApplicationListener.class, () -> (ApplicationListener<ApplicationEvent>) event -> {
                    if (event instanceof AbstractLeaderEvent leaderEvent) {
                        events.add(leaderEvent);
                    }
                })
                .run(context -> {
                    assertThat(context).hasSingleBean(ZkLeaderInitiator.class);
                    ZkLeaderInitiator initiator = context.getBean(ZkLeaderInitiator.class);
                    assertThat(initiator.isRunning()).isTrue();
                    assertThat(initiator.getPath()).isEqualTo(path);
                    assertThat(initiator.getPhase()).isEqualTo(Integer.MAX_VALUE - 1000);
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> initiator.getContext().isLeader());
                    assertThat(reader.getChildren().forPath(path)).hasSize(1);
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 2);
        assertThat(events).hasExactlyElementsOfTypes(OnGrantedEvent.class, OnRevokedEvent.class);
        assertThat(events.get(0).getRole()).isEqualTo("billing");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> reader.checkExists().forPath(path) == null
                        || reader.getChildren().forPath(path).isEmpty());
    }

    @Test
    void initiator_withoutACandidate_isNotMade() {
        runner().run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(ZkLeaderInitiator.class)
                .hasSingleBean(ZkSpringLockRegistry.class));
    }

    @Test
    void initiator_withTwoCandidates_isNotMade() {
        runner().withBean("a", Candidate.class, () -> new DefaultCandidate("node-1", "a"))
                .withBean("b", Candidate.class, () -> new DefaultCandidate("node-1", "b"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLeaderInitiator.class));
    }

    @Test
    void initiator_whenTheApplicationDefinesOne_backsOff() {
        CuratorFramework client = zk.newClient();
        Candidate candidate = new DefaultCandidate("node-1", "billing");
        ZkLeaderInitiator own = new ZkLeaderInitiator(client, candidate, zk.path("own"));
        own.setAutoStartup(false);
        runner().withBean(Candidate.class, () -> candidate)
                .withBean(ZkLeaderInitiator.class, () -> own)
                .run(context ->
                        assertThat(context.getBean(ZkLeaderInitiator.class)).isSameAs(own));
        LockRegistryLeaderInitiator spring = new LockRegistryLeaderInitiator(new DefaultLockRegistry(), candidate);
        spring.setAutoStartup(false);
        runner().withBean(Candidate.class, () -> candidate)
                .withBean(LockRegistryLeaderInitiator.class, () -> spring)
                .run(context -> assertThat(context).doesNotHaveBean(ZkLeaderInitiator.class));
    }

    @Test
    void initiator_withAutoStartupOffAndAPhase_isMadeButNotStarted() {
        runner().withBean(Candidate.class, () -> new DefaultCandidate("node-1", "billing"))
                .withPropertyValues("zklock.leader.auto-startup=false", "zklock.leader.phase=7")
                .run(context -> {
                    ZkLeaderInitiator initiator = context.getBean(ZkLeaderInitiator.class);
                    assertThat(initiator.isAutoStartup()).isFalse();
                    assertThat(initiator.isRunning()).isFalse();
                    assertThat(initiator.getPhase()).isEqualTo(7);
                });
    }

    @Test
    void initiator_withARelativeRoot_failsTheContextNamingThePath() {
        runner().withBean(Candidate.class, () -> new DefaultCandidate("node-1", "billing"))
                .withPropertyValues("zklock.leader.root=relative")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("'relative/billing'"));
    }

    @Test
    void properties_configurationMetadata_describesEveryLeaderPropertyWithItsDefault() throws IOException {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in =
                getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            for (JsonNode property : new ObjectMapper().readTree(in).get("properties")) {
                properties.put(property.get("name").asText(), property);
            }
        }
        assertThat(properties).containsKeys("zklock.leader.root", "zklock.leader.auto-startup", "zklock.leader.phase");
        assertThat(properties.get("zklock.leader.root").path("defaultValue").asText())
                .isEqualTo(ZkLeaderInitiator.DEFAULT_ROOT)
                .isEqualTo(new ZkLeaderProperties().getRoot());
        assertThat(properties
                        .get("zklock.leader.auto-startup")
                        .path("defaultValue")
                        .asBoolean())
                .isTrue();
        assertThat(properties.get("zklock.leader.phase").path("defaultValue").asInt())
                .isEqualTo(new ZkLeaderProperties().getPhase());
        assertThat(properties.get("zklock.leader.root").path("description").asText())
                .isNotBlank();
    }
}
