rchar: 33311173069
wchar: 5981
syscr: 8132784
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
