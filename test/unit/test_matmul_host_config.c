/* Unit test of the examples' config strings: "BMxBNxBK:gG:wW:sS" with an optional operand path (":cp", ":tma", ":pp", ":ws") parse, print back and set the compile options every build of a config uses (mh_config_options: the single-config build and the tuner alike). */
#include "../../examples/matmul_host.h"

#include "check.h"

typedef struct path_case {
  const char *text;
  mh_path path;
  int tma, warp_specialize;
} path_case;

int main(void) {
  gemmc_compile_options defaults;
  gemmc_compile_options_init(&defaults);
  const path_case cases[] = {
      {"128x128x32:g8:w4:s4", MH_PATH_AUTO, defaults.tma, defaults.warp_specialize},
      {"128x128x32:g8:w4:s4:cp", MH_PATH_CP, -1, -1},
      {"128x128x32:g8:w4:s4:tma", MH_PATH_TMA, 1, -1},
      {"128x128x64:g8:w4:s3:pp", MH_PATH_PING_PONG, defaults.tma, GEMMC_WARP_SPECIALIZE_PING_PONG},
      {"128x256x64:g8:w8:s3:ws", MH_PATH_WS, defaults.tma, GEMMC_WARP_SPECIALIZE_ON},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const path_case *pc = &cases[i];
    mh_config c = mh_default_config;
    CHECK(mh_config_parse(pc->text, &c), "%s does not parse", pc->text);
    CHECK(c.path == pc->path, "%s: path %d, want %d", pc->text, c.path, pc->path);
    char back[64];
    mh_config_str(&c, back, sizeof back);
    CHECK(!strcmp(back, pc->text), "%s prints back as %s", pc->text, back);
    gemmc_compile_options o;
    gemmc_compile_options_init(&o);
    mh_config_options(&c, &o);
    CHECK(o.num_warps == c.num_warps && o.num_stages == c.num_stages, "%s: warps %d stages %d", pc->text, o.num_warps,
          o.num_stages);
    CHECK(o.tma == pc->tma && o.warp_specialize == pc->warp_specialize, "%s: tma %d warp_specialize %d", pc->text,
          o.tma, o.warp_specialize);
  }
  mh_config bad;
  CHECK(!mh_config_parse("128x128", &bad), "a config without BLOCK_K parses");
  CHECK(!mh_config_parse("128x128x64:w0", &bad), "zero warps parse");
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
