rchar: 81972407256
wchar: 13669
syscr: 625618
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
