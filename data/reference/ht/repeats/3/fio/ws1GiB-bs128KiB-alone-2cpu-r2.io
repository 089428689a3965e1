rchar: 54681995779
wchar: 11285
syscr: 417382
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
