rchar: 46060383326
wchar: 13658
syscr: 351652
syscw: 5
read_bytes: 593920
write_bytes: 12288
cancelled_write_bytes: 0
