// One flag style across `actorflow` and the examples: TensorFlow's
// snake_case (--max_step_secs). Older hyphenated spellings
// (--max-step-secs) still work for one release: SnakeCaseFlags rewrites them
// in argv, in place, with one warning each, before a program parses its
// flags. Stops at "--": what follows is another program's command line.
#pragma once

namespace af {

void SnakeCaseFlags(int argc, char** argv);

}  // namespace af
