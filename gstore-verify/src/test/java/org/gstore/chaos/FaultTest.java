package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FaultTest {
  @Test
  void faultListsAreParsedByNameOrAll() {
    assertThat(Fault.parse("kill, pause,MOVE")).containsExactly(Fault.KILL, Fault.PAUSE, Fault.MOVE);
    assertThat(Fault.parse("all")).isEqualTo(EnumSet.allOf(Fault.class));
    assertThatThrownBy(() -> Fault.parse("kill,nap")).hasMessageContaining("unknown fault 'nap'")
        .hasMessageContaining("kill,pause,move,balance,split,restart,master");
  }

  @Test
  void theOperatorsOperationsAreNamedAsApiMdNamesThem() {
    assertThat(Fault.parse("rolling-restart,decommission,add-rs"))
        .containsExactly(Fault.ROLLING_RESTART, Fault.DECOMMISSION, Fault.ADD_RS);
    assertThat(EnumSet.allOf(Fault.class).stream().map(Fault::option)).contains("rolling-restart", "add-rs");
  }

  @Test
  void theVerdictCountsEachKindByTheIssuesWords() {
    assertThat(EnumSet.allOf(Fault.class).stream().map(Fault::counted))
        .containsExactly("kills", "pauses", "moves", "balances", "splits", "restarts", "masters", "partitions",
            "skews", "rolling-restarts", "decommissions", "added-servers");
  }
}
