rchar: 15324232786
wchar: 13662
syscr: 3741479
syscw: 5
read_bytes: 12288
write_bytes: 8192
cancelled_write_bytes: 0
