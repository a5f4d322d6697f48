# G-Pass@k grid for long chain-of-thought ("o1-like") models, generated in-process by lmdeploy
# TurboMind.  Same settings as nono1.py except the output budget: 32768 tokens, because these
# models think at length before answering (a truncated answer scores as wrong).
#
#   python save_opencompass_configs.py -tc opencompass_config_templates/o1.py
#   opencompass opencompass_configs/<one of the files>.py -w outputs/
#
# Any variable can be overridden at generation time: --set "temperatures=[0.6]" n=16

# Generation backend: lmdeploy inside each OpenCompass task (needs GPUs and `pip install lmdeploy`).
backend = 'turbomind'

# Models: Hugging Face id or local path; tp = GPUs per model; batch_size = prompts per call.
models = [
    dict(path='deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', tp=1, batch_size=64),
    dict(path='deepseek-ai/DeepSeek-R1-Distill-Llama-8B', tp=1, batch_size=64),
    dict(path='deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', tp=2, batch_size=64),
    dict(path='Qwen/QwQ-32B-Preview', tp=2, batch_size=64),
    dict(path='deepseek-ai/DeepSeek-R1-Distill-Llama-70B', tp=4, batch_size=64),
]

# Benchmarks, by canonical name (gpassk_opencompass.catalog).
benchmarks = [
    'LiveMathBench-202412',
    'LiveMathBench-Hard-202412',
    'LiveMathBench-202505',
    'MATH500-L5',
    'AIME2024-45',
    'AIME2025',
]

# Sampling: one file per temperature; n generations per question; G-Pass@k for every k <= n.
temperatures = [1.0]
k = [4, 8, 16]
n = 48
# Curtailed sampling (docs/generator.md, "Curtailed grids"): e.g. dict(first=16, rule='all-wrong') draws 16
# generations per question, then the other n - 16 only for questions with one of the 16 right; every metric
# stays exactly unbiased. `gpassk grid run` draws the second round and combines the two. None: n for every question.
curtail = None
top_p = 0.8
top_k = 50
repetition_penalty = 1.0
# Base seed: every generation gets its own seed derived from it (replicas differ, run reproducible).
seed = 42
max_out_len = 32768

# Also one greedy run (temperature 0, n = 1) per model and benchmark: the Greedy column.
greedy = True

# Judge: an OpenAI-compatible server; with no URL the rule-based judge is used.
eval_urls = [
    # 'http://judge-host:23333/v1',
]
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
judge = 'auto'
