rchar: 98822630367
wchar: 18969
syscr: 754178
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
