rchar: 82148305974
wchar: 18970
syscr: 626964
syscw: 5
read_bytes: 32768
write_bytes: 12288
cancelled_write_bytes: 0
