rchar: 43890453456
wchar: 13662
syscr: 2679072
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
