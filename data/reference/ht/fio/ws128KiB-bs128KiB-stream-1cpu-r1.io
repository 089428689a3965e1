rchar: 72003333123
wchar: 13664
syscr: 549559
syscw: 5
read_bytes: 20480
write_bytes: 32768
cancelled_write_bytes: 0
