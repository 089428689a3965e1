rchar: 40103291878
wchar: 13662
syscr: 306182
syscw: 5
read_bytes: 229376
write_bytes: 12288
cancelled_write_bytes: 0
