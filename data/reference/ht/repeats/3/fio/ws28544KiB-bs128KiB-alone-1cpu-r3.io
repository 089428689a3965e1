rchar: 35895094210
wchar: 13660
syscr: 274077
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
